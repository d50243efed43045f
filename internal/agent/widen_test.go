package agent_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// allowedKey marks a context that carries a widened sandbox.
type allowedKey struct{}

// fakeWidener records what it was asked to allow. Once marks the
// context; a wider scope makes every later run succeed.
type fakeWidener struct {
	mu      sync.Mutex
	allowed []agent.Scope
	wide    atomic.Bool
}

func (w *fakeWidener) Allow(ctx context.Context, r protocol.SandboxRefusal, scope agent.Scope) (context.Context, error) {
	w.mu.Lock()
	w.allowed = append(w.allowed, scope)
	w.mu.Unlock()
	if scope == agent.ScopeOnce {
		return context.WithValue(ctx, allowedKey{}, true), nil
	}
	w.wide.Store(true)
	return ctx, nil
}

func (w *fakeWidener) HowToAllow(r protocol.SandboxRefusal) string {
	return "add " + r.Shown + " to sandbox.writable"
}

// refusedTool is a bash whose run is refused writing ~/.cache/x unless
// the sandbox was widened.
func refusedTool(w *fakeWidener, runs *atomic.Int32) tool.Tool {
	type in struct {
		Command string `json:"command"`
	}
	return tool.New(tool.Def[in]{
		Info: tool.Info{Name: "bash", Description: "test bash", Set: tool.SetCore, Effect: tool.Runs, Kind: protocol.KindExecute, Subject: tool.CommandSubject},
		Plan: func(i *in) tool.Plan {
			return tool.Plan{Title: i.Command, Commands: []string{i.Command}, Subjects: []string{i.Command}}
		},
		Run: func(ctx context.Context, _ tool.Runtime, i *in) (tool.Result, error) {
			runs.Add(1)
			if ctx.Value(allowedKey{}) != nil || w.wide.Load() {
				return tool.Text("exit: 0\nwrote it"), nil
			}
			return tool.Result{Output: "exit: 1\ntouch: Permission denied", Refused: &protocol.SandboxRefusal{Path: "/home/u/.cache", Shown: "~/.cache", Denied: "/home/u/.cache/x"}}, nil
		},
	})
}

func TestARefusalIsOfferedAndTheCallRunsAgain(t *testing.T) {
	for _, tc := range []struct {
		answer protocol.Decision
		scope  agent.Scope
	}{{protocol.Yes, agent.ScopeOnce}, {protocol.Always, agent.ScopeSession}, {protocol.Project, agent.ScopeProject}} {
		t.Run(string(tc.answer), func(t *testing.T) {
			w := &fakeWidener{}
			var runs atomic.Int32
			gate := &agent.Gate{Rules: allowAll(), Widen: w}
			h := newHarnessTools(t, options{gate: gate, attended: true}, []tool.Tool{refusedTool(w, &runs)},
				resp(toolCall("c1", "bash", `{"command":"touch ~/.cache/x"}`)), resp(llm.TextDelta{Text: "ok"}))
			h.answers.answers = []protocol.Decision{tc.answer}
			evs := h.collect(t.Context(), "go")
			reqs := h.answers.seen()
			if len(reqs) != 1 || reqs[0].Sandbox == nil || reqs[0].Sandbox.Shown != "~/.cache" || reqs[0].CallID != "c1" {
				t.Fatalf("offers = %+v", reqs)
			}
			if runs.Load() != 2 {
				t.Fatalf("runs = %d, want the call and its retry", runs.Load())
			}
			if len(w.allowed) != 1 || w.allowed[0] != tc.scope {
				t.Fatalf("allowed = %v, want %v", w.allowed, tc.scope)
			}
			res, ok := find[protocol.ToolResultEvent](evs)
			if !ok || !strings.Contains(res.Output, "wrote it") || !strings.Contains(res.Output, "allowed it "+tc.scope.String()) {
				t.Fatalf("result = %+v", res)
			}
			if _, ok := find[protocol.SandboxRefusedEvent](evs); ok {
				t.Fatal("an allowed refusal was reported as refused")
			}
			// The model reads the retry's result.
			last := h.wire.requests()[1].Messages
			if !strings.Contains(toolResultText(last), "wrote it") {
				t.Fatalf("the model did not read the retry: %v", last)
			}
		})
	}
}

func TestARefusalNobodyAllowsIsReported(t *testing.T) {
	for name, o := range map[string]options{
		"unattended": {gate: &agent.Gate{Rules: allowAll()}},
		"said no":    {gate: &agent.Gate{Rules: allowAll()}, attended: true},
		"never":      {gate: &agent.Gate{Rules: allowAll(), Approval: permission.Never}, attended: true},
	} {
		t.Run(name, func(t *testing.T) {
			w := &fakeWidener{}
			o.gate.Widen = w
			var runs atomic.Int32
			h := newHarnessTools(t, o, []tool.Tool{refusedTool(w, &runs)},
				resp(toolCall("c1", "bash", `{"command":"touch ~/.cache/x"}`)), resp(llm.TextDelta{Text: "ok"}))
			evs := h.collect(t.Context(), "go")
			ev, ok := find[protocol.SandboxRefusedEvent](evs)
			if !ok || ev.CallID != "c1" || ev.Refusal.Path != "/home/u/.cache" || !strings.Contains(ev.Allow, "sandbox.writable") {
				t.Fatalf("sandbox-refused = %+v (%v)", ev, ok)
			}
			if runs.Load() != 1 || len(w.allowed) != 0 {
				t.Fatalf("runs = %d, allowed = %v", runs.Load(), w.allowed)
			}
			if name == "never" && len(h.answers.seen()) != 0 {
				t.Fatal("never asked the person")
			}
		})
	}
}

func toolResultText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok {
				b.WriteString(r.Output)
			}
		}
	}
	return b.String()
}
