package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// startWith starts a session over reg whose Setup and Expand hooks the
// test supplies, recording the requests it sends.
func startWith(t *testing.T, reg *tool.Registry, rules agent.Rules, cfg func(*agent.Config), responses ...replay.Response) (*agent.Owner, *recorder) {
	t.Helper()
	wire := &recorder{inner: replay.New("test", responses)}
	c := agent.Config{
		Provider: wire, Model: "test-model", SessionID: "s1", Cwd: t.TempDir(), Tools: reg,
		Gate:     &agent.Gate{Plugins: plugin.NewHost(), Rules: rules},
		Prompter: staticPrompter{stable: "You are a test."},
		Filter:   tool.Filter{Sets: tool.DefaultSets()},
	}
	if cfg != nil {
		cfg(&c)
	}
	s, err := agent.Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return s, wire
}

func drain(s *agent.Owner, text string) []protocol.Event {
	var out []protocol.Event
	for e := range s.Send(context.Background(), text) {
		out = append(out, e)
	}
	return out
}

func offered(req llm.Request) []string {
	var names []string
	for _, sp := range req.Tools {
		names = append(names, sp.Name)
	}
	return names
}

func mustRegistry(t *testing.T, ts ...tool.Tool) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// A registry a TurnSetup brings is offered from that turn on: the turn
// before it never sees the new tool, the turn after calls it.
func TestTurnSetupToolsTakeEffectAtTheTurnBoundary(t *testing.T) {
	first := &fakeTool{name: "first"}
	late := &fakeTool{name: "late"}
	base := mustRegistry(t, first.build())
	grown := mustRegistry(t, first.build(), late.build())
	var turns atomic.Int32
	s, wire := startWith(t, base, allowAll(), func(c *agent.Config) {
		c.Hooks = hookFuncs{setup: func(context.Context) agent.TurnSetup {
			if turns.Add(1) == 2 {
				return agent.TurnSetup{Tools: grown, Notices: []string{"tools changed"}}
			}
			return agent.TurnSetup{}
		}}
	},
		resp(toolCall("c1", "late", `{}`)), resp(llm.TextDelta{Text: "refused"}),
		resp(toolCall("c2", "late", `{}`)), resp(llm.TextDelta{Text: "done"}),
	)

	evs := drain(s, "one")
	if e, ok := find[protocol.ToolErrorEvent](evs); !ok || !strings.Contains(e.Error, "not offered") {
		t.Fatalf("a tool the turn does not offer ran or was not refused: %+v", e)
	}
	if s.Tools() != base {
		t.Fatal("the registry changed before the turn boundary")
	}
	evs = drain(s, "two")
	if n, ok := find[protocol.NoticeEvent](evs); !ok || n.Text != "tools changed" {
		t.Errorf("the setup's notice was not shown: %+v", evs)
	}
	if late.runs.Load() != 1 {
		t.Fatalf("the new tool ran %d times in the second turn, want 1", late.runs.Load())
	}
	reqs := wire.requests()
	if got := offered(reqs[0]); !slices.Equal(got, []string{"first"}) {
		t.Errorf("first turn offered %v", got)
	}
	if got := offered(reqs[2]); !slices.Equal(got, []string{"first", "late"}) {
		t.Errorf("second turn offered %v", got)
	}
	if s.Tools() != grown {
		t.Error("Session.Tools does not report the registry in use")
	}
}

// stand is a tool whose calls stand for a call of another tool, as the MCP
// meta tool's do.
type stand struct{ target tool.Tool }

type standIn struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"arguments"`
}

func (s *stand) Info() *tool.Info {
	return &tool.Info{Name: "stand", Description: "calls another tool", Effect: tool.Reads, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (s *stand) Prepare(input json.RawMessage) (tool.Prepared, error) {
	var in standIn
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, &tool.InputError{Err: err}
	}
	return &standCall{input: input, target: s.target, args: in.Args}, nil
}

type standCall struct {
	input  json.RawMessage
	target tool.Tool
	args   json.RawMessage
}

func (c *standCall) Input() json.RawMessage { return c.input }
func (c *standCall) Plan() tool.Plan        { return tool.Plan{} }
func (c *standCall) Run(context.Context, tool.Runtime) (tool.Result, error) {
	panic("a forwarding call must never run itself")
}
func (c *standCall) Forward() (tool.Tool, tool.Prepared, error) {
	p, err := c.target.Prepare(c.args)
	return c.target, p, err
}

// A forwarded call meets the gate as the tool it stands for: a rule that
// denies the real tool refuses it, although the stand-in itself reads only.
func TestForwardedCallIsJudgedAsTheRealTool(t *testing.T) {
	real := &fakeTool{name: "real", effect: tool.Runs}
	realTool := real.build()
	var judged []string
	rules := rulesFunc(func(q permission.Query) permission.Decision {
		judged = append(judged, q.Tool)
		if q.Tool == "real" {
			return permission.Deny
		}
		return permission.Allow
	})
	reg := mustRegistry(t, &stand{target: realTool})
	s, _ := startWith(t, reg, rules, nil,
		resp(toolCall("c1", "stand", `{"tool":"real","arguments":{"x":1}}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := drain(s, "go")
	if real.runs.Load() != 0 {
		t.Fatal("a call the rules deny ran")
	}
	if !slices.Equal(judged, []string{"real"}) {
		t.Errorf("the rules judged %v, want only the real tool", judged)
	}
	call, _ := find[protocol.ToolCallEvent](evs)
	if call.Name != "real" || string(call.Input) != `{"x":1}` {
		t.Errorf("the call event shows %s %s, want the real call", call.Name, call.Input)
	}
	if _, ok := find[protocol.ToolDeniedEvent](evs); !ok {
		t.Errorf("no denial: %v", types(evs))
	}
}

// The forwarded call's own input errors go back to the model, and an
// allowed forwarded call runs the real tool.
func TestForwardedCallRunsTheRealTool(t *testing.T) {
	real := &fakeTool{name: "real"}
	reg := mustRegistry(t, &stand{target: real.build()})
	s, wire := startWith(t, reg, allowAll(), nil,
		resp(toolCall("c1", "stand", `{"tool":"real","arguments":{"x":"not a number"}}`), toolCall("c2", "stand", `{"tool":"real","arguments":{"x":2}}`)),
		resp(llm.TextDelta{Text: "ok"}))
	evs := drain(s, "go")
	if real.runs.Load() != 1 {
		t.Fatalf("the real tool ran %d times, want 1", real.runs.Load())
	}
	if e, ok := find[protocol.ToolErrorEvent](evs); !ok || !strings.Contains(e.Error, "invalid arguments") {
		t.Errorf("bad forwarded input was not refused: %+v", e)
	}
	results := wire.requests()[1].Messages
	last := results[len(results)-1]
	for _, p := range last.Parts {
		if r, ok := p.(llm.ToolResult); ok && r.Name != "stand" {
			t.Errorf("a result answers %q; the model called stand", r.Name)
		}
	}
}

// The Expand hook's text is what the model reads; the turn-start event keeps
// what the person typed.
func TestExpandRewritesTheHistoryNotTheEvent(t *testing.T) {
	s, wire := startWith(t, mustRegistry(t), allowAll(), func(c *agent.Config) {
		c.Hooks = hookFuncs{expand: func(_ context.Context, in agent.TurnInput) agent.TurnInput {
			in.Text += "\n[attached]"
			in.Notices = append(in.Notices, "attached 1 resource")
			return in
		}}
	}, resp(llm.TextDelta{Text: "ok"}))
	evs := drain(s, "look @srv:doc")
	start, _ := find[protocol.TurnStartEvent](evs)
	if start.Text != "look @srv:doc" {
		t.Errorf("turn-start text = %q", start.Text)
	}
	if n, ok := find[protocol.NoticeEvent](evs); !ok || n.Text != "attached 1 resource" {
		t.Errorf("no notice from Expand: %v", types(evs))
	}
	msgs := wire.requests()[0].Messages
	if got := msgs[len(msgs)-1].PlainText(); got != "look @srv:doc\n[attached]" {
		t.Errorf("the model read %q", got)
	}
}
