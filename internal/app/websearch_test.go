package app_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// openWith opens a session on preset against srv, with the given user
// config.
func openWith(t *testing.T, preset, userConfig string, srv *llmtest.Server) *app.App {
	t.Helper()
	work, home := t.TempDir(), t.TempDir()
	if userConfig != "" {
		mkfile(t, filepath.Join(home, ".shiro-neko", "config.json"), userConfig)
	}
	env := map[string]string{"SHIRO_HOME": home, "HOME": home, "SHIRO_API_KEY": "test-key"}
	loaded, err := app.Load(func(k string) string { return env[k] }, work,
		config.Flags{Provider: preset, BaseURL: srv.URL, Model: "test-model", Sandbox: "off"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// toolsOf lists the tools of a request body as "name/type".
func toolsOf(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct{ Name, Type string } `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range req.Tools {
		out = append(out, tl.Name+"/"+tl.Type)
	}
	return out
}

// With the net set on an Anthropic model, web_search is Anthropic's own:
// the session shows the search and the sources after the answer, and the
// next turn's request carries the search blocks back.
func TestWebSearchOnTheProviderThroughASession(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{
			Searches:  []llmtest.Search{{ID: "srvtoolu_9", Query: "shiro neko", Results: []llmtest.Source{{URL: "https://example.com/cat", Title: "White cat"}}}},
			Text:      "A white cat.",
			Citations: []llmtest.Source{{URL: "https://example.com/cat", Title: "White cat"}},
		},
		llmtest.Reply{Text: "You're welcome."},
	)
	a := openWith(t, "custom-anthropic", `{"toolSets":["net"]}`, srv)
	evs := run(t.Context(), a.Session, "what is a shiro neko?")
	var text, notices strings.Builder
	for _, e := range evs {
		switch e := e.(type) {
		case protocol.TextEvent:
			text.WriteString(e.Text)
		case protocol.NoticeEvent:
			notices.WriteString(e.Text + "\n")
		case protocol.ToolCallEvent, protocol.ErrorEvent:
			t.Fatalf("unexpected %#v", e)
		}
	}
	if want := "A white cat.\n\nSources:\n1. White cat — https://example.com/cat"; text.String() != want {
		t.Errorf("text %q, want %q", text.String(), want)
	}
	if !strings.Contains(notices.String(), `Anthropic ran web_search "shiro neko"`) {
		t.Errorf("notices %q", notices.String())
	}
	first := srv.ModelCalls()[0].Body
	tools := toolsOf(t, first)
	if !contains(tools, "web_search/web_search_20250305") || !contains(tools, "web_fetch/") || contains(tools, "web_search/") {
		t.Errorf("tools %v", tools)
	}

	run(t.Context(), a.Session, "thanks")
	second := string(srv.ModelCalls()[1].Body)
	if !strings.Contains(second, `{"type":"server_tool_use","id":"srvtoolu_9","name":"web_search","input":{"query":"shiro neko"}}`) ||
		!strings.Contains(second, `"encrypted_content":"enc-https://example.com/cat"`) {
		t.Errorf("the search was not sent back: %s", second)
	}
}

// Without the net set nothing of the web is offered, so the default first
// request is unchanged; with webSearch.local, or a permission rule someone
// wrote for web_search, the search stays shiro's own function (where the
// rule is enforced) even on a provider that searches.
func TestWebSearchIsOptInAndCanStayLocal(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	run(t.Context(), openWith(t, "custom-anthropic", "", srv).Session, "hi")
	run(t.Context(), openWith(t, "custom-anthropic", `{"toolSets":["net"],"webSearch":{"local":true}}`, srv).Session, "hi")
	run(t.Context(), openWith(t, "custom-anthropic", `{"toolSets":["net"],"permission":{"web_search":{"*":"ask","golang *":"allow"}}}`, srv).Session, "hi")
	calls := srv.ModelCalls()
	if body := string(calls[0].Body); strings.Contains(body, "web_search") || strings.Contains(body, "web_fetch") {
		t.Error("the default request offers web tools")
	}
	for i, why := range map[int]string{1: "webSearch.local", 2: "a web_search rule"} {
		if tools := toolsOf(t, calls[i].Body); !contains(tools, "web_search/") || contains(tools, "web_search/web_search_20250305") {
			t.Errorf("%s: tools %v", why, tools)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
