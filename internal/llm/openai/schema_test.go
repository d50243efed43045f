package openai_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

const answerSchema = `{"type":"object","properties":{"status":{"enum":["ok","bad"]}},"required":["status"]}`

// --output-schema reaches each wire in its structured-output field, the
// person's schema unchanged and not in strict mode (which would refuse a
// schema outside its subset); a request without one has no such field.
func TestOutputSchemaOnTheWire(t *testing.T) {
	var want any
	if err := json.Unmarshal([]byte(answerSchema), &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		api  openai.API
		path []any // where the format object is in the body
	}{
		{openai.APIChat, []any{"response_format"}},
		{openai.APIResponses, []any{"text", "format"}},
	} {
		srv, p := newProvider(t, openai.Config{API: c.api}, llmtest.Reply{Text: `{"status":"ok"}`}, llmtest.Reply{Text: "ok"})
		req := request(llm.UserText("status?"))
		req.OutputSchema = json.RawMessage(answerSchema)
		llmtest.MustCollect(t, p, req)
		llmtest.MustCollect(t, p, request(llm.UserText("again")))

		calls := srv.ModelCalls()
		format, ok := at(t, calls[0].JSON(t), c.path...).(map[string]any)
		if !ok {
			t.Fatalf("api %v: no format object at %v in\n%s", c.api, c.path, calls[0].Body)
		}
		if format["type"] != "json_schema" {
			t.Errorf("api %v: format type = %v, want json_schema", c.api, format["type"])
		}
		named := format
		if c.api == openai.APIChat {
			named, _ = format["json_schema"].(map[string]any)
		}
		if named["name"] == "" || named["name"] == nil {
			t.Errorf("api %v: the format has no name (the API requires one): %v", c.api, format)
		}
		if !reflect.DeepEqual(named["schema"], want) {
			t.Errorf("api %v: schema sent = %v, want %v", c.api, named["schema"], want)
		}
		if strict, ok := named["strict"]; ok && strict != false {
			t.Errorf("api %v: strict = %v, want it off", c.api, strict)
		}
		if v, ok := calls[1].JSON(t)[c.path[0].(string)]; ok {
			t.Errorf("api %v: a request without a schema carries %v: %v", c.api, c.path[0], v)
		}
	}
}
