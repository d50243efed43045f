package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// delegating is a tool whose prepared calls delegate: they emit events from
// several goroutines, record usage under two models and report a child's
// work.
type delegating struct{ runs int }

type delegatingCall struct {
	d     *delegating
	input json.RawMessage
}

func (d *delegating) Info() *tool.Info {
	return &tool.Info{Name: "task", Effect: tool.Delegates, Schema: []byte(`{"type":"object"}`)}
}

func (d *delegating) Prepare(in json.RawMessage) (tool.Prepared, error) {
	return &delegatingCall{d: d, input: in}, nil
}

func (c *delegatingCall) Input() json.RawMessage { return c.input }
func (c *delegatingCall) Plan() tool.Plan        { return tool.Plan{} }
func (c *delegatingCall) Run(context.Context, tool.Runtime) (tool.Result, error) {
	c.d.runs++
	return tool.Text("ran"), nil
}

func (c *delegatingCall) Delegate(_ context.Context, rt tool.Runtime, p agent.Parent) (tool.Result, error) {
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			p.Emit(protocol.SubagentEvent{ID: fmt.Sprintf("%s.%d", rt.CallID, i+1), CallID: rt.CallID, Kind: "explore", Phase: protocol.SubagentStart})
			p.AddUsage([]string{"small", "big", "small"}[i], llm.Usage{InputTokens: 1, OutputTokens: 2})
		})
	}
	wg.Wait()
	p.NoteWork([]string{"write_file"}, []string{"a.txt"})
	if p.Gate == nil || p.Tools == nil || p.Model != "test-model" || p.Broker == nil {
		return tool.Result{}, fmt.Errorf("parent not lent: %+v", p)
	}
	return tool.Text("delegated"), nil
}

type summaryKeeper struct {
	agent.NoHooks
	mu  sync.Mutex
	got agent.TurnSummary
}

func (k *summaryKeeper) Ended(_ context.Context, e agent.TurnEnd) agent.Ending {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.got = e.TurnSummary
	return agent.Ending{}
}

func TestDelegatorEventsUsageAndWorkReachTheParent(t *testing.T) {
	d := &delegating{}
	keeper := &summaryKeeper{}
	h := newHarnessTools(t, options{hooks: keeper}, []tool.Tool{d},
		resp(toolCall("c1", "task", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	starts := 0
	for _, e := range evs {
		if se, ok := e.(protocol.SubagentEvent); ok && se.Phase == protocol.SubagentStart {
			starts++
		}
	}
	if starts != 3 {
		t.Fatalf("subagent events = %d, want 3: %v", starts, types(evs))
	}
	if r, _ := find[protocol.ToolResultEvent](evs); r.Output != "delegated" {
		t.Fatalf("result = %+v", r)
	}
	if d.runs != 0 {
		t.Fatal("a Delegator's Run was called instead of Delegate")
	}
	s := h.session
	got := s.SubagentUsage()
	want := []agent.ModelUsage{{Model: "big", Usage: llm.Usage{InputTokens: 1, OutputTokens: 2}}, {Model: "small", Usage: llm.Usage{InputTokens: 2, OutputTokens: 4}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("subagent usage = %+v, want %+v", got, want)
	}
	if u := s.Usage(); u.InputTokens != 20 {
		t.Fatalf("the session's own usage must not include subagents: %+v", u)
	}
	keeper.mu.Lock()
	defer keeper.mu.Unlock()
	if fmt.Sprint(keeper.got.ToolsCalled) != "[task write_file]" || fmt.Sprint(keeper.got.FilesWritten) != "[a.txt]" {
		t.Fatalf("summary = %+v", keeper.got)
	}
}

// A subagent's session shares its parent's approval desk: its requests go
// out on the parent's stream, marked with the subagent, and the parent's
// answer reaches it.
func TestSubagentApprovalsReachTheParentsFrontEnd(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	parent := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, nil)
	reg, err := tool.NewRegistry(bash.build())
	if err != nil {
		t.Fatal(err)
	}
	cfg := parent.session.Config()
	cfg.Tools, cfg.Subagent, cfg.Broker = reg, "worker", parent.session.Broker()
	cfg.Provider = (&harness{}).withScript(resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	child, err := agent.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The parent's front end sees the request and denies it.
	go func() {
		for e := range parent.session.Events() {
			if r, ok := e.(protocol.ApprovalRequestEvent); ok {
				if r.Subagent != "worker" {
					t.Errorf("request not marked: %+v", r)
				}
				_, _ = parent.session.Submit(protocol.Approval{ID: r.ID, Decision: protocol.No})
			}
		}
	}()
	var deniedReason string
	for e := range child.Send(t.Context(), "go") {
		if _, ok := e.(protocol.ApprovalRequestEvent); ok {
			t.Error("a subagent's request reached the subagent's own stream")
		}
		if d, ok := e.(protocol.ToolDeniedEvent); ok {
			deniedReason = d.Reason
		}
	}
	_, _ = child.Submit(protocol.Shutdown{})
	for range child.Events() {
	}
	if deniedReason != "The user denied this call. Stop and report it." || bash.runs.Load() != 0 {
		t.Fatalf("denied %q, runs %d", deniedReason, bash.runs.Load())
	}
}
