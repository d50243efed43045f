package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tools"
)

// blockRM is a stand-in guard: it blocks any command containing "rm -rf".
func blockRM() plugin.Plugin {
	return plugin.Plugin{Name: "guard", BeforeToolCall: func(_ context.Context, c plugin.Call) (string, error) {
		for _, cmd := range c.Commands {
			if strings.Contains(cmd, "rm -rf") {
				return "refusing " + cmd, nil
			}
		}
		return "", nil
	}}
}

func denied(t *testing.T, evs []agent.Event) agent.ToolDeniedEvent {
	t.Helper()
	d, ok := find[agent.ToolDeniedEvent](evs)
	if !ok {
		t.Fatalf("want a tool-denied event, got %v", types(evs))
	}
	return d
}

// Invariant 1 and 2: a plugin block never executes, even with --yolo.
func TestGuardBlockNeverRunsEvenWithYolo(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	gate := &agent.Gate{Plugins: plugin.NewHost(blockRM()), Rules: askAll(), Yolo: true}
	h := newHarness(t, gate, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"rm -rf src"}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := collect(t.Context(), h.session, "go")
	if d := denied(t, evs); d.By != "guard" || !strings.Contains(d.Reason, "rm -rf src") {
		t.Fatalf("denied = %+v", d)
	}
	if bash.runs.Load() != 0 {
		t.Fatal("a blocked call ran")
	}
	if len(h.approver.requests) != 0 {
		t.Fatal("a guard block must not reach the person")
	}
}

func TestPluginBlockIsAttributedToThePlugin(t *testing.T) {
	p := plugin.Plugin{Name: "secrets", BeforeToolCall: func(context.Context, plugin.Call) (string, error) { return "no", nil }}
	bash := &fakeTool{name: "bash", mutating: true}
	h := newHarness(t, &agent.Gate{Plugins: plugin.NewHost(p), Rules: allowAll()}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, collect(t.Context(), h.session, "go")); d.By != "plugin:secrets" {
		t.Fatalf("by = %q", d.By)
	}
}

func TestPanickingPluginBlocks(t *testing.T) {
	p := plugin.Plugin{Name: "buggy", BeforeToolCall: func(context.Context, plugin.Call) (string, error) { panic("oops") }}
	bash := &fakeTool{name: "bash", mutating: true}
	h := newHarness(t, &agent.Gate{Plugins: plugin.NewHost(p), Rules: allowAll()}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	denied(t, collect(t.Context(), h.session, "go"))
	if bash.runs.Load() != 0 {
		t.Fatal("a call blocked by a crashing plugin ran")
	}
}

// Invariant 2: --yolo never passes a deny rule.
func TestDenyRuleWinsOverYolo(t *testing.T) {
	rules := rulesFunc(func(string, json.RawMessage) agent.RuleVerdict {
		return agent.RuleVerdict{Decision: agent.Deny, Pattern: "*", Reason: `Refused by the permission rule bash: "*" = deny.`}
	})
	bash := &fakeTool{name: "bash", mutating: true}
	h := newHarness(t, &agent.Gate{Rules: rules, Yolo: true}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	d := denied(t, collect(t.Context(), h.session, "go"))
	if d.By != "rule" || bash.runs.Load() != 0 {
		t.Fatalf("deny rule not honoured: %+v runs=%d", d, bash.runs.Load())
	}
}

func TestYoloTurnsAskIntoAllow(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	h := newHarness(t, &agent.Gate{Rules: askAll(), Yolo: true}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	collect(t.Context(), h.session, "go")
	if bash.runs.Load() != 1 || len(h.approver.requests) != 0 {
		t.Fatalf("runs=%d asks=%d", bash.runs.Load(), len(h.approver.requests))
	}
}

func TestPersonDeniesThenApproves(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	h := newHarness(t, &agent.Gate{Rules: askAll()}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)),
		resp(toolCall("c2", "bash", `{"command":"pwd"}`)),
		resp(llm.TextDelta{Text: "ok"}))
	h.approver.answers = []agent.Answer{agent.AnswerDeny, agent.AnswerOnce}
	evs := collect(t.Context(), h.session, "go")
	if d := denied(t, evs); d.By != "user" || d.Reason != "User denied this tool call." {
		t.Fatalf("denied = %+v", d)
	}
	if bash.runs.Load() != 1 {
		t.Fatalf("runs = %d, want only the approved call", bash.runs.Load())
	}
	if got := string(h.approver.requests[0].Input); got != `{"command":"ls"}` {
		t.Fatalf("approval saw input %s", got)
	}
}

func TestRepeatGuardAsksOnTheThirdIdenticalCall(t *testing.T) {
	read := &fakeTool{name: "read"}
	call := func(id string) replayResp { return resp(toolCall(id, "read", `{"path":"a"}`)) }
	h := newHarness(t, &agent.Gate{Rules: allowAll(), Yolo: true}, []tools.Tool{read},
		call("1"), call("2"), call("3"), resp(llm.TextDelta{Text: "ok"}))
	evs := collect(t.Context(), h.session, "go")
	if len(h.approver.requests) != 1 || !h.approver.requests[0].Repeated {
		t.Fatalf("want one repeated-call approval, got %+v", h.approver.requests)
	}
	if read.runs.Load() != 2 {
		t.Fatalf("runs = %d, want 2 (third denied)", read.runs.Load())
	}
	denied(t, evs)
}

func TestRepeatCountResetsEachTurn(t *testing.T) {
	read := &fakeTool{name: "read"}
	call := func(id string) replayResp { return resp(toolCall(id, "read", `{"path":"a"}`)) }
	h := newHarness(t, &agent.Gate{Rules: allowAll()}, []tools.Tool{read},
		call("1"), call("2"), resp(llm.TextDelta{Text: "ok"}),
		call("3"), call("4"), resp(llm.TextDelta{Text: "ok"}))
	collect(t.Context(), h.session, "one")
	collect(t.Context(), h.session, "two")
	if len(h.approver.requests) != 0 || read.runs.Load() != 4 {
		t.Fatalf("asks=%d runs=%d", len(h.approver.requests), read.runs.Load())
	}
}

// hookFunc adapts a function to agent.Hooks.
type hookFunc func(tool string, in json.RawMessage) agent.HookVerdict

func (f hookFunc) PreTool(_ context.Context, tool, _ string, in json.RawMessage) agent.HookVerdict {
	return f(tool, in)
}

// Invariant 4: a hook's rewrite is re-checked by the compiled guard.
func TestHookRewriteCannotLaunderPastTheGuard(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	hook := hookFunc(func(string, json.RawMessage) agent.HookVerdict {
		return agent.HookVerdict{Rewritten: true, Input: json.RawMessage(`{"command":"rm -rf /"}`)}
	})
	gate := &agent.Gate{Plugins: plugin.NewHost(blockRM()), Hooks: hook, Rules: allowAll(), Yolo: true}
	h := newHarness(t, gate, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, collect(t.Context(), h.session, "go")); d.By != "guard" {
		t.Fatalf("by = %q", d.By)
	}
	if bash.runs.Load() != 0 {
		t.Fatal("laundered call ran")
	}
}

func TestHookRewriteIsWhatRuns(t *testing.T) {
	var got string
	bash := &fakeTool{name: "bash", mutating: true, run: func(_ context.Context, c tools.Call) (string, error) {
		got = string(c.Input)
		return "ok", nil
	}}
	hook := hookFunc(func(string, json.RawMessage) agent.HookVerdict {
		return agent.HookVerdict{Rewritten: true, Input: json.RawMessage(`{"command":"ls -a"}`)}
	})
	h := newHarness(t, &agent.Gate{Hooks: hook, Rules: allowAll()}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	collect(t.Context(), h.session, "go")
	if got != `{"command":"ls -a"}` {
		t.Fatalf("ran with %s", got)
	}
}

func TestHookBlockIsAttributedToTheHook(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	hook := hookFunc(func(string, json.RawMessage) agent.HookVerdict {
		return agent.HookVerdict{Blocked: true, Hook: "policy", Reason: "not today"}
	})
	h := newHarness(t, &agent.Gate{Hooks: hook, Rules: allowAll(), Yolo: true}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, collect(t.Context(), h.session, "go")); d.By != "hook:policy" || d.Reason != "not today" {
		t.Fatalf("denied = %+v", d)
	}
}

func TestExplainReportsLayerWithoutRunning(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	gate := &agent.Gate{Plugins: plugin.NewHost(blockRM()), Rules: askAll()}
	e := gate.Explain(t.Context(), bash, "x", json.RawMessage(`{"command":"rm -rf x"}`))
	if e.Decision != "block" || e.By != "plugin:guard" {
		t.Fatalf("explain = %+v", e)
	}
	e = gate.Explain(t.Context(), bash, "x", json.RawMessage(`{"command":"ls"}`))
	if e.Decision != "ask" || e.By != "default" {
		t.Fatalf("explain = %+v", e)
	}
	if bash.runs.Load() != 0 {
		t.Fatal("explain ran the tool")
	}
}
