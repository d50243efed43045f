package tui

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// projectWidener keeps project grants in a file, as the app's does, and
// widens the session's sandbox.
type projectWidener struct {
	mu      sync.Mutex
	grants  string
	allowed bool
	scopes  []agent.Scope
}

func (w *projectWidener) Allow(ctx context.Context, r protocol.SandboxRefusal, scope agent.Scope) (context.Context, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.scopes = append(w.scopes, scope)
	if scope == agent.ScopeProject {
		if err := os.WriteFile(w.grants, []byte(r.Path+"\n"), 0o600); err != nil {
			return ctx, err
		}
	}
	w.allowed = true
	return ctx, nil
}

func (w *projectWidener) HowToAllow(r protocol.SandboxRefusal) string {
	return "add it to sandbox.writable"
}

func (w *projectWidener) isAllowed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.allowed
}

// cacheTool stands for bash running `go test`: the sandbox refuses its
// cache folder until it is allowed; then it writes there and passes.
func cacheTool(w *projectWidener, cache string) tool.Tool {
	type in struct {
		Command string `json:"command"`
	}
	return tool.New(tool.Def[in]{
		Info: tool.Info{Name: "bash", Description: "run", Set: tool.SetCore, Effect: tool.Runs, Kind: protocol.KindExecute, Subject: tool.CommandSubject},
		Plan: func(i *in) tool.Plan {
			return tool.Plan{Title: i.Command, Commands: []string{i.Command}, Subjects: []string{i.Command}}
		},
		Run: func(_ context.Context, _ tool.Runtime, i *in) (tool.Result, error) {
			if !w.isAllowed() {
				return tool.Result{Output: "exit: 1\nmkdir " + cache + ": permission denied",
					Refused: &protocol.SandboxRefusal{Path: cache, Shown: "~/.cache/go-build", Denied: cache}}, nil
			}
			if err := os.MkdirAll(cache, 0o755); err != nil {
				return tool.Result{}, err
			}
			return tool.Text("exit: 0\nok  \texample.com/m\t0.01s"), os.WriteFile(filepath.Join(cache, "entry"), []byte("x"), 0o644)
		},
	})
}

// The sandbox refused a command its cache folder: the prompt offers to
// allow it, p allows it for the project, and the command runs again and
// succeeds, its retry being what the model reads.
func TestASandboxRefusalIsAllowedForTheProjectAndRunsAgain(t *testing.T) {
	dir := t.TempDir()
	w := &projectWidener{grants: filepath.Join(dir, "sandbox-grants.json")}
	cache := filepath.Join(dir, "home", ".cache", "go-build")
	p := newGatedProvider(
		[]llm.StreamPart{llm.ToolCallDone{ID: "b1", Name: "bash", Input: []byte(`{"command":"go test ./..."}`)}, finish(10, 5)},
		[]llm.StreamPart{llm.TextDelta{Text: "Tests pass."}, finish(10, 5)},
	)
	a := startAgent(t, agentOpts{provider: p, widen: w, tools: func(string) []tool.Tool { return []tool.Tool{cacheTool(w, cache)} }})
	tp := newTap(a.Owner)
	d := startDriver(t, tp, Options{})
	d.submit("run the tests")
	d.waitText("the sandbox refused bash writing ~/.cache/go-build", "p for this project")
	d.press("p")
	frame := d.waitDone(1)
	d.waitText("allowing writing ~/.cache/go-build for this project; running the command again", "Tests pass.")
	if d := answerOf(t, tp.submitted()); d != protocol.Project {
		t.Fatalf("answer = %s", d)
	}
	if _, err := os.Stat(filepath.Join(cache, "entry")); err != nil {
		t.Fatalf("the command did not run again: %v\n%s", err, frame)
	}
	if got, _ := os.ReadFile(w.grants); string(got) != cache+"\n" {
		t.Fatalf("project grant = %q", got)
	}
	if len(w.scopes) != 1 || w.scopes[0] != agent.ScopeProject {
		t.Fatalf("scopes = %v", w.scopes)
	}
}
