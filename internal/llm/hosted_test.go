package llm_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// A provider-run block survives a cassette (stream part JSON) and the
// session store (message JSON) byte for byte, since it goes back to the
// provider as it came; one without a wire or with broken JSON is refused
// by name.
func TestServerBlocksRoundTrip(t *testing.T) {
	block := llm.ServerBlock{Wire: llm.WireAnthropic, Raw: json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"encrypted_content":"e"}]}`)}
	b, err := llm.MarshalStreamPart(block)
	if err != nil {
		t.Fatal(err)
	}
	part, err := llm.UnmarshalStreamPart(b)
	if err != nil || !reflect.DeepEqual(part, block) {
		t.Fatalf("stream part: %#v, %v", part, err)
	}
	msg := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{block, llm.Text{Text: "x"}}}
	b, err = json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back llm.Message
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Parts, msg.Parts) {
		t.Fatalf("message: %#v, %v", back.Parts, err)
	}
	for _, bad := range []string{`{"type":"server-block","raw":{}}`, `{"type":"server-block","wire":"anthropic","raw":"{"}`} {
		if _, err := llm.UnmarshalStreamPart([]byte(bad)); err == nil || !strings.Contains(err.Error(), "server-block") {
			t.Errorf("%s: %v", bad, err)
		}
		if err := json.Unmarshal([]byte(`{"role":"assistant","parts":[`+bad+`]}`), &back); err == nil || !strings.Contains(err.Error(), "server-block") {
			t.Errorf("message with %s: %v", bad, err)
		}
	}
}

// Sources lists each cited URL once, in the order first cited, after a
// blank line; nothing cited is nothing shown.
func TestSourcesList(t *testing.T) {
	var s llm.Sources
	if s.List() != "" {
		t.Fatal("empty sources listed")
	}
	s.Add(llm.Citation{URL: "https://a.example/", Title: "A\n page"})
	s.Add(llm.Citation{URL: ""})
	s.Add(llm.Citation{URL: "https://b.example/"})
	s.Add(llm.Citation{URL: "https://a.example/", Title: "again"})
	if got, want := s.List(), "\n\nSources:\n1. A page — https://a.example/\n2. https://b.example/"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
