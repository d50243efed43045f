package app_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// openDelegating assembles a session for the task and ask wiring tests.
func openDelegating(t *testing.T, srv *llmtest.Server, edit func(*app.Options)) *app.App {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "test-key", "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, t.TempDir(),
		config.Flags{Provider: "custom-anthropic", BaseURL: srv.URL, Model: "main-model"})
	if err != nil {
		t.Fatal(err)
	}
	opts := app.Options{Loaded: loaded}
	edit(&opts)
	a, err := app.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// offered reads the tools of a recorded request, with the task tool's kinds.
func offered(t *testing.T, r llmtest.Request) (names, kinds []string) {
	t.Helper()
	var body struct {
		Tools []struct {
			Name   string `json:"name"`
			Schema struct {
				Properties struct {
					Kind struct {
						Enum []string `json:"enum"`
					} `json:"kind"`
				} `json:"properties"`
			} `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, tool := range body.Tools {
		names = append(names, tool.Name)
		if tool.Name == "task" {
			kinds = tool.Schema.Properties.Kind.Enum
		}
	}
	return names, kinds
}

func drain(s *agent.Session) {
	for range s.Send(context.Background(), "hi") {
	}
	s.Wait()
}

func TestUnattendedOffersTaskWithoutWorkerAndNoAsk(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	a := openDelegating(t, srv, func(o *app.Options) { o.Attended = false })
	drain(a.Session)
	names, kinds := offered(t, srv.ModelCalls()[0])
	if !slices.Contains(names, "task") || slices.Contains(names, "ask") {
		t.Fatalf("offered %v: want task and no ask when nobody attends", names)
	}
	if !slices.Equal(kinds, []string{"explore", "review"}) {
		t.Fatalf("unattended task kinds = %v", kinds)
	}
}

func TestInteractiveOffersAskAndWorker(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	a := openDelegating(t, srv, func(o *app.Options) { o.Attended = true })
	drain(a.Session)
	names, kinds := offered(t, srv.ModelCalls()[0])
	if !slices.Contains(names, "ask") || !slices.Contains(names, "task") {
		t.Fatalf("offered %v", names)
	}
	if !slices.Equal(kinds, []string{"explore", "review", "worker"}) {
		t.Fatalf("interactive task kinds = %v", kinds)
	}
}

func TestNoSubagentOmitsTask(t *testing.T) {
	srv := llmtest.New(t)
	a := openDelegating(t, srv, func(o *app.Options) { o.NoSubagent, o.Attended = true, true })
	if _, ok := a.Tools.Get("task"); ok {
		t.Fatal("--no-subagent left the task tool in")
	}
}

// subagentModel reaches the wire for explore, and its tokens are counted
// apart from the main session's.
func TestExploreUsesSubagentModel(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "p1", Name: "task", Input: `{"description":"look","prompt":"Find main."}`}}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 1}},
		llmtest.Reply{Text: "main.go:1", Usage: llmtest.Usage{InputTokens: 50, OutputTokens: 5}},
		llmtest.Reply{Text: "ok", Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 1}},
	)
	a := openDelegating(t, srv, func(o *app.Options) {
		o.Settings.SubagentModel = "small-model"
	})
	drain(a.Session)
	var models []string
	for _, r := range srv.ModelCalls() {
		var body struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		models = append(models, body.Model)
	}
	if !slices.Equal(models, []string{"main-model", "small-model", "main-model"}) {
		t.Fatalf("models on the wire = %v", models)
	}
	sub := a.Owner().SubagentUsage()
	if len(sub) != 1 || sub[0].Model != "small-model" || sub[0].Usage.InputTokens != 50 {
		t.Fatalf("subagent usage = %+v", sub)
	}
	if u := a.Owner().Usage(); u.InputTokens != 20 {
		t.Fatalf("main usage = %+v", u)
	}
}
