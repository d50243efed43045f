package headless_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

const statusSchema = `{
  "type": "object",
  "properties": {
    "status": {"enum": ["ok", "bad"]},
    "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}
  },
  "required": ["status"],
  "additionalProperties": false
}`

func loadSchema(t *testing.T, text string) *headless.Schema {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answer.schema.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := headless.LoadSchema(dir, "answer.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A bad schema file is refused naming the file and what is wrong with it.
func TestABadSchemaFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"notjson.json": `{"type":`,
		"array.json":   `[1]`,
		"badtype.json": `{"type":"objekt"}`,
		"badref.json":  `{"$ref":"#/definitions/none"}`,
		"remote.json":  `{"$ref":"https://example.com/schema.json"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := headless.LoadSchema(dir, name)
		if err == nil || !strings.Contains(err.Error(), "--output-schema "+name) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
	if _, err := headless.LoadSchema(dir, "missing.json"); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: err = %v", err)
	}
	s := loadSchema(t, statusSchema)
	if string(s.Raw) != `{"type":"object","properties":{"status":{"enum":["ok","bad"]},"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}},"required":["status"],"additionalProperties":false}` {
		t.Errorf("raw = %s", s.Raw)
	}
}

// Check names where the answer fails, by its JSON pointer, and takes a
// fence around the whole answer off.
func TestSchemaCheckNamesTheFailingPath(t *testing.T) {
	s := loadSchema(t, statusSchema)
	for answer, want := range map[string]string{
		`{"status":"x"}`: "at /status: value must be one of 'ok', 'bad'",
		`{"status":"ok","items":[{"n":1},{"n":"a"}]}`: "at /items/1/n: got string, want integer",
		`{"status":"ok","z":1}`:                       "at the top level: additional properties 'z' not allowed",
		`The status is ok.`:                           "the answer is not a JSON value",
	} {
		if _, err := s.Check(answer); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", answer, err, want)
		}
	}
	got, err := s.Check("```json\n{ \"status\": \"ok\" }\n```\n")
	if err != nil || string(got) != `{"status":"ok"}` {
		t.Errorf("fenced answer: %s, %v", got, err)
	}
}

// An answer that fails the schema goes back to the model once with what
// failed; the corrected one is the result, printed alone in the text
// format (not the failed attempt) and as structured_output in json.
func TestASchemaFailureIsRetriedOnce(t *testing.T) {
	turns := [][]protocol.Event{
		{protocol.TurnStartEvent{Turn: 1}, protocol.TextEvent{Text: `{"status":"fine"}`}, protocol.DoneEvent{Reason: protocol.StopEnd}},
		{protocol.TurnStartEvent{Turn: 2}, protocol.TextEvent{Text: "```json\n{\"status\": \"ok\"}\n```"}, protocol.DoneEvent{Reason: protocol.StopEnd}},
	}
	for _, format := range []headless.Format{headless.FormatText, headless.FormatJSON} {
		s := newScripted(turns...)
		var out, errb bytes.Buffer
		code := headless.Run(t.Context(), s, headless.Prompt("status?"), headless.Options{Format: format, Out: &out, Err: &errb, Schema: loadSchema(t, statusSchema)})
		if code != 0 {
			t.Fatalf("%s: code = %d, stderr %s", format, code, errb.String())
		}
		ops := s.submitted()
		if len(ops) != 3 {
			t.Fatalf("%s: ops = %#v, want the prompt, one correction, shutdown", format, ops)
		}
		fix, _ := ops[1].(protocol.UserTurn)
		if !strings.Contains(fix.Text, "at /status: value must be one of 'ok', 'bad'") {
			t.Errorf("%s: the correction does not say what failed: %q", format, fix.Text)
		}
		if !strings.Contains(errb.String(), "[notice] the final answer does not validate against the JSON Schema in answer.schema.json: at /status") {
			t.Errorf("%s: stderr = %q", format, errb.String())
		}
		switch format {
		case headless.FormatText:
			if out.String() != "{\"status\":\"ok\"}\n" {
				t.Errorf("text stdout = %q, want the validated answer alone", out.String())
			}
		case headless.FormatJSON:
			r := decodeResult(t, out.String())
			if r.IsError || r.Result != `{"status":"ok"}` || string(r.StructuredOutput) != `{"status":"ok"}` || r.NumTurns != 2 {
				t.Errorf("result = %+v", r)
			}
		}
	}
}

// When the correction fails too, the run exits 1 naming the schema file
// and the failing path; nothing is written to -o.
func TestASchemaFailureAfterItsRetryExitsOne(t *testing.T) {
	bad := []protocol.Event{protocol.TurnStartEvent{}, protocol.TextEvent{Text: `{"status":"ok","items":[{}]}`}, protocol.DoneEvent{Reason: protocol.StopEnd}}
	last := filepath.Join(t.TempDir(), "last.json")
	for _, format := range []headless.Format{headless.FormatText, headless.FormatJSON, headless.FormatStreamJSON} {
		s := newScripted(bad, bad, bad)
		var out, errb bytes.Buffer
		code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Format: format, Out: &out, Err: &errb, Schema: loadSchema(t, statusSchema), LastMessage: last})
		if code != 1 {
			t.Errorf("%s: code = %d, want 1", format, code)
		}
		if n := len(s.submitted()); n != 3 {
			t.Errorf("%s: %d ops, want the prompt, one correction and shutdown", format, n)
		}
		want := "the final answer does not validate against the JSON Schema in answer.schema.json: at /items/0: missing property 'n' (after 1 retry)"
		switch format {
		case headless.FormatText:
			if out.String() != "" || !strings.Contains(errb.String(), "[error] "+want) {
				t.Errorf("text: stdout %q, stderr %q", out.String(), errb.String())
			}
		case headless.FormatJSON:
			r := decodeResult(t, out.String())
			if !r.IsError || r.Subtype != "error_max_structured_output_retries" || r.Error != want || r.StructuredOutput != nil || r.Result != `{"status":"ok","items":[{}]}` {
				t.Errorf("result = %+v", r)
			}
		case headless.FormatStreamJSON:
			if !strings.HasSuffix(out.String(), `{"type":"error","error":"`+want+`"}`+"\n") {
				t.Errorf("stream-json does not end with the error: %s", out.String())
			}
		}
	}
	if _, err := os.Stat(last); !os.IsNotExist(err) {
		t.Errorf("-o was written for an answer that failed: %v", err)
	}
}

// A turn that did not end with an answer (an error) is not retried: its
// exit code already says it failed.
func TestASchemaIsNotCheckedOnAFailedTurn(t *testing.T) {
	s := newScripted([]protocol.Event{protocol.ErrorEvent{Error: "boom"}, protocol.DoneEvent{Reason: protocol.StopError}})
	var out, errb bytes.Buffer
	code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb, Schema: loadSchema(t, statusSchema)})
	if code != 1 || len(s.submitted()) != 2 || strings.Contains(errb.String(), "validate") {
		t.Errorf("code %d, ops %v, stderr %q", code, s.submitted(), errb.String())
	}
}

// A draft-07 schema that names its parts by $ref, in the file and in a
// file beside it, is read, and its failures are placed in the answer, all
// of them.
func TestSchemaRefsAreFollowedAndEveryFailureNamed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"answer.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
			"properties": {"todos": {"type": "array", "items": {"$ref": "#/definitions/todo"}}, "owner": {"$ref": "owner.json"}},
			"required": ["todos", "owner"],
			"definitions": {"todo": {"type": "object", "properties": {"line": {"type": "integer", "minimum": 1}, "text": {"type": "string", "minLength": 1}}, "required": ["line", "text"]}}}`,
		"owner.json": `{"type": "string", "pattern": "^[a-z]+$"}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := headless.LoadSchema(dir, "answer.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(`{"todos": [{"line": 3, "text": "x"}], "owner": "ann"}`); err != nil {
		t.Errorf("a valid answer: %v", err)
	}
	_, err = s.Check(`{"todos": [{"line": 3, "text": "x"}, {"line": 0, "text": ""}, {"text": "y"}], "owner": "Ann"}`)
	want := "at /owner: 'Ann' does not match pattern '^[a-z]+$'; at /todos/1/line: must be >= 1 but found 0; " +
		"at /todos/1/text: length must be >= 1 but found 0; at /todos/2: missing property 'line'"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// A draft the validator does not read is refused when the schema is
// loaded, not when the first answer comes back.
func TestSchemaOfAnUnreadDraftIsRefused(t *testing.T) {
	dir := t.TempDir()
	text := `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}`
	if err := os.WriteFile(filepath.Join(dir, "old.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := headless.LoadSchema(dir, "old.json")
	if err == nil || !strings.Contains(err.Error(), "--output-schema old.json is not a valid JSON Schema: at '/$schema'") {
		t.Errorf("err = %v", err)
	}
}

// A failure in a keyword the explanation does not read is still a
// failure, told in the validator's words.
func TestSchemaFailureOutsideTheExplainedKeywords(t *testing.T) {
	s := loadSchema(t, `{"type": "object", "dependentRequired": {"a": ["b"]}}`)
	if _, err := s.Check(`{"a": 1}`); err == nil || !strings.Contains(err.Error(), "dependentRequired") {
		t.Errorf("err = %v", err)
	}
	if _, err := s.Check(`{"a": 1, "b": 2}`); err != nil {
		t.Errorf("a valid answer: %v", err)
	}
}

// The combinators are placed too: anyOf, oneOf and not at the value they
// judge, if/then by the branch that applies.
func TestSchemaCombinatorFailuresArePlaced(t *testing.T) {
	s := loadSchema(t, `{"type": "object", "properties": {
		"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
		"kind": {"oneOf": [{"const": "a"}, {"enum": ["a", "b"]}]},
		"tag": {"not": {"const": "x"}},
		"n": {"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 3}}}}`)
	_, err := s.Check(`{"id": 1.5, "kind": "a", "tag": "x", "n": 5}`)
	want := "at /id: value matches none of the 2 schemas in 'anyOf'; at /kind: value matches 2 of the schemas in 'oneOf', want exactly one; " +
		"at /n: must be <= 3 but found 5; at /tag: value must not match the schema in 'not'"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := s.Check(`{"id": "z", "kind": "b", "tag": "y", "n": 20}`); err != nil {
		t.Errorf("a valid answer: %v", err)
	}
}

// A type that names no JSON type is refused wherever it is, named by its
// place in the schema.
func TestSchemaWithABadNestedTypeIsRefused(t *testing.T) {
	dir := t.TempDir()
	text := `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"items": [{"type": "string"}, {"type": ["integer", "text"]}]}}}`
	if err := os.WriteFile(filepath.Join(dir, "nested.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := headless.LoadSchema(dir, "nested.json")
	if err == nil || !strings.Contains(err.Error(), `at '/properties/b/items/1/type': "text" is not a JSON type`) {
		t.Errorf("err = %v", err)
	}
}
