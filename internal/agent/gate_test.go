package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
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

func denied(t *testing.T, evs []protocol.Event) protocol.ToolDeniedEvent {
	t.Helper()
	d, ok := find[protocol.ToolDeniedEvent](evs)
	if !ok {
		t.Fatalf("want a tool-denied event, got %v", types(evs))
	}
	return d
}

// Invariant 1 and 2: a plugin block never executes, even with --yolo.
func TestGuardBlockNeverRunsEvenWithYolo(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	gate := &agent.Gate{Plugins: plugin.NewHost(blockRM()), Rules: askAll(), Yolo: true}
	h := newHarness(t, options{gate: gate, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"rm -rf src"}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	if d := denied(t, evs); d.By != "guard" || !strings.Contains(d.Reason, "rm -rf src") {
		t.Fatalf("denied = %+v", d)
	}
	if bash.runs.Load() != 0 {
		t.Fatal("a blocked call ran")
	}
	if len(h.answers.seen()) != 0 {
		t.Fatal("a guard block must not reach the person")
	}
}

func TestPluginBlockIsAttributedToThePlugin(t *testing.T) {
	p := plugin.Plugin{Name: "secrets", BeforeToolCall: func(context.Context, plugin.Call) (string, error) { return "no", nil }}
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Plugins: plugin.NewHost(p), Rules: allowAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, h.collect(t.Context(), "go")); d.By != "plugin:secrets" {
		t.Fatalf("by = %q", d.By)
	}
}

func TestPanickingPluginBlocks(t *testing.T) {
	p := plugin.Plugin{Name: "buggy", BeforeToolCall: func(context.Context, plugin.Call) (string, error) { panic("oops") }}
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Plugins: plugin.NewHost(p), Rules: allowAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	denied(t, h.collect(t.Context(), "go"))
	if bash.runs.Load() != 0 {
		t.Fatal("a call blocked by a crashing plugin ran")
	}
}

// Invariant 2: --yolo never passes a deny rule.
func TestDenyRuleWinsOverYolo(t *testing.T) {
	rules := rulesFunc(func(permission.Query) permission.Decision { return permission.Deny })
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: rules, Yolo: true}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	d := denied(t, h.collect(t.Context(), "go"))
	if d.By != "rule" || bash.runs.Load() != 0 {
		t.Fatalf("deny rule not honoured: %+v runs=%d", d, bash.runs.Load())
	}
}

func TestYoloTurnsAskIntoAllow(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll(), Yolo: true}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	if bash.runs.Load() != 1 || len(h.answers.seen()) != 0 {
		t.Fatalf("runs=%d asks=%d", bash.runs.Load(), len(h.answers.seen()))
	}
}

func TestPersonDeniesThenApproves(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)),
		resp(toolCall("c2", "bash", `{"command":"pwd"}`)),
		resp(llm.TextDelta{Text: "ok"}))
	h.answers.answers = []protocol.Decision{protocol.No, protocol.Yes}
	evs := h.collect(t.Context(), "go")
	if d := denied(t, evs); d.By != "user" || d.Reason != "User denied this tool call." {
		t.Fatalf("denied = %+v", d)
	}
	if bash.runs.Load() != 1 {
		t.Fatalf("runs = %d, want only the approved call", bash.runs.Load())
	}
	req := h.answers.seen()[0]
	if string(req.Input) != `{"command":"ls"}` || req.Name != "bash" || req.Title != "ls" || req.CallID != "c1" || req.ID == "" {
		t.Fatalf("approval request = %+v", req)
	}
}

func TestRepeatGuardAsksOnTheThirdIdenticalCall(t *testing.T) {
	read := &fakeTool{name: "read"}
	call := func(id string) replay.Response { return resp(toolCall(id, "read", `{"path":"a"}`)) }
	h := newHarness(t, options{gate: &agent.Gate{Rules: allowAll(), Yolo: true}, attended: true}, []*fakeTool{read},
		call("1"), call("2"), call("3"), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	if len(h.answers.seen()) != 1 || !h.answers.seen()[0].Repeated {
		t.Fatalf("want one repeated-call approval, got %+v", h.answers.seen())
	}
	if read.runs.Load() != 2 {
		t.Fatalf("runs = %d, want 2 (third denied)", read.runs.Load())
	}
	denied(t, evs)
}

func TestRepeatCountResetsEachTurn(t *testing.T) {
	read := &fakeTool{name: "read"}
	call := func(id string) replay.Response { return resp(toolCall(id, "read", `{"path":"a"}`)) }
	h := newHarness(t, options{gate: &agent.Gate{Rules: allowAll()}, attended: true}, []*fakeTool{read},
		call("1"), call("2"), resp(llm.TextDelta{Text: "ok"}),
		call("3"), call("4"), resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "one")
	h.collect(t.Context(), "two")
	if len(h.answers.seen()) != 0 || read.runs.Load() != 4 {
		t.Fatalf("asks=%d runs=%d", len(h.answers.seen()), read.runs.Load())
	}
}

// hookFunc adapts a function to agent.Hooks.
type hookFunc func(tool string, in json.RawMessage) tool.HookVerdict

func (f hookFunc) PreTool(_ context.Context, tool, _ string, in json.RawMessage) tool.HookVerdict {
	return f(tool, in)
}

// Invariant 4: a hook's rewrite is re-checked by the compiled guard.
func TestHookRewriteCannotLaunderPastTheGuard(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	hook := hookFunc(func(string, json.RawMessage) tool.HookVerdict {
		return tool.HookVerdict{Rewritten: true, Input: json.RawMessage(`{"command":"rm -rf /"}`)}
	})
	gate := &agent.Gate{Plugins: plugin.NewHost(blockRM()), Hooks: hook, Rules: allowAll(), Yolo: true}
	h := newHarness(t, options{gate: gate, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, h.collect(t.Context(), "go")); d.By != "guard" {
		t.Fatalf("by = %q", d.By)
	}
	if bash.runs.Load() != 0 {
		t.Fatal("laundered call ran")
	}
}

func TestHookRewriteIsWhatRuns(t *testing.T) {
	var got string
	bash := &fakeTool{name: "bash", effect: tool.Runs, run: func(_ context.Context, _ tool.Runtime, in *fakeIn) (string, error) {
		got = in.Command
		return "ok", nil
	}}
	hook := hookFunc(func(string, json.RawMessage) tool.HookVerdict {
		return tool.HookVerdict{Rewritten: true, Input: json.RawMessage(`{"command":"ls -a"}`)}
	})
	h := newHarness(t, options{gate: &agent.Gate{Hooks: hook, Rules: allowAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	if got != "ls -a" {
		t.Fatalf("ran with %s", got)
	}
}

func TestHookBlockIsAttributedToTheHook(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	hook := hookFunc(func(string, json.RawMessage) tool.HookVerdict {
		return tool.HookVerdict{Blocked: true, Hook: "policy", Reason: "not today"}
	})
	h := newHarness(t, options{gate: &agent.Gate{Hooks: hook, Rules: allowAll(), Yolo: true}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, h.collect(t.Context(), "go")); d.By != "hook:policy" || d.Reason != "not today" {
		t.Fatalf("denied = %+v", d)
	}
}

// A hook's allow spares the question a rule asks, never a deny rule.
func TestHookAllowSparesAQuestionButNotADeny(t *testing.T) {
	allow := hookFunc(func(string, json.RawMessage) tool.HookVerdict { return tool.HookVerdict{Hook: "ok", Allow: true} })
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Hooks: allow, Rules: askAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	if bash.runs.Load() != 1 || len(h.answers.seen()) != 0 {
		t.Fatalf("runs = %d, asked %d times; want it run unasked", bash.runs.Load(), len(h.answers.seen()))
	}
	deny := rulesFunc(func(permission.Query) permission.Decision { return permission.Deny })
	bash = &fakeTool{name: "bash", effect: tool.Runs}
	h = newHarness(t, options{gate: &agent.Gate{Hooks: allow, Rules: deny, Yolo: true}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, h.collect(t.Context(), "go")); d.By != "rule" || bash.runs.Load() != 0 {
		t.Fatalf("denied = %+v, runs = %d", d, bash.runs.Load())
	}
}

// A hook's ask puts the question even where a rule allows, and --yolo
// does not skip it.
func TestHookAskIsAskedEvenWithYolo(t *testing.T) {
	ask := hookFunc(func(string, json.RawMessage) tool.HookVerdict { return tool.HookVerdict{Hook: "careful", Ask: true} })
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Hooks: ask, Rules: allowAll(), Yolo: true}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.answers.answers = []protocol.Decision{protocol.No}
	evs := h.collect(t.Context(), "go")
	if len(h.answers.seen()) != 1 || bash.runs.Load() != 0 {
		t.Fatalf("asked %d times, runs = %d", len(h.answers.seen()), bash.runs.Load())
	}
	denied(t, evs)
}

func prepare(t *testing.T, tl tool.Tool, input string) tool.Prepared {
	t.Helper()
	p, err := tl.Prepare(json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExplainReportsLayerWithoutRunning(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	bt := bash.build()
	gate := &agent.Gate{Plugins: plugin.NewHost(blockRM()), Rules: askAll()}
	e := gate.Explain(t.Context(), bt, "x", prepare(t, bt, `{"command":"rm -rf x"}`))
	if e.Decision != "block" || e.By != "plugin:guard" {
		t.Fatalf("explain = %+v", e)
	}
	e = gate.Explain(t.Context(), bt, "x", prepare(t, bt, `{"command":"ls"}`))
	if e.Decision != "ask" || e.By != `rule "*"` {
		t.Fatalf("explain = %+v", e)
	}
	if bash.runs.Load() != 0 {
		t.Fatal("explain ran the tool")
	}
}
