package agent_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

func TestSubagentEventJSON(t *testing.T) {
	b, err := agent.MarshalEvent(agent.SubagentEvent{ID: "c1.2", CallID: "c1", Kind: "explore", Phase: agent.SubagentStep, Text: "grep Open"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"subagent","id":"c1.2","callId":"c1","kind":"explore","phase":"step","text":"grep Open"}`
	if string(b) != want {
		t.Fatalf("JSON = %s\nwant   %s", b, want)
	}
}

// delegatingTool emits events from several goroutines, records usage under
// two models and reports a child's work.
type delegatingTool struct{ fakeTool }

func (d *delegatingTool) Delegate(ctx context.Context, c tools.Call, p agent.Parent) (string, error) {
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			p.Emit(agent.SubagentEvent{ID: fmt.Sprintf("%s.%d", c.ID, i+1), CallID: c.ID, Kind: "explore", Phase: agent.SubagentStart})
			p.AddUsage([]string{"small", "big", "small"}[i], llm.Usage{InputTokens: 1, OutputTokens: 2})
		})
	}
	wg.Wait()
	p.NoteWork([]string{"write_file"}, []string{"a.txt"})
	if p.Gate == nil || p.Tools == nil || p.Model != "test-model" {
		return "", fmt.Errorf("parent not lent: %+v", p)
	}
	return "delegated", nil
}

type summaryKeeper struct{ got agent.TurnSummary }

func (k *summaryKeeper) AfterTurn(_ context.Context, s agent.TurnSummary) []string {
	k.got = s
	return nil
}

func TestDelegatorEventsUsageAndWorkReachTheParent(t *testing.T) {
	d := &delegatingTool{fakeTool{name: "task"}}
	h := newHarness(t, nil, []tools.Tool{d}, resp(toolCall("c1", "task", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	keeper := &summaryKeeper{}
	cfg := h.session.Config()
	cfg.Observers = []agent.TurnObserver{keeper}
	s, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t.Context(), s, "go")

	starts := 0
	for _, e := range evs {
		if se, ok := e.(agent.SubagentEvent); ok && se.Phase == agent.SubagentStart {
			starts++
		}
	}
	if starts != 3 {
		t.Fatalf("subagent events = %d, want 3: %v", starts, types(evs))
	}
	if r, _ := find[agent.ToolResultEvent](evs); r.Output != "delegated" {
		t.Fatalf("result = %+v", r)
	}
	if d.runs.Load() != 0 {
		t.Fatal("a Delegator's Run was called instead of Delegate")
	}
	got := s.SubagentUsage()
	want := []agent.ModelUsage{{Model: "big", Usage: llm.Usage{InputTokens: 1, OutputTokens: 2}}, {Model: "small", Usage: llm.Usage{InputTokens: 2, OutputTokens: 4}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("subagent usage = %+v, want %+v", got, want)
	}
	if u := s.Usage(); u.InputTokens != 20 {
		t.Fatalf("the session's own usage must not include subagents: %+v", u)
	}
	if fmt.Sprint(keeper.got.ToolsCalled) != "[task write_file]" || fmt.Sprint(keeper.got.FilesWritten) != "[a.txt]" {
		t.Fatalf("summary = %+v", keeper.got)
	}
}

func TestSubagentSessionMarksItsApprovals(t *testing.T) {
	bash := &fakeTool{name: "bash", mutating: true}
	h := newHarness(t, &agent.Gate{Rules: askAll()}, []tools.Tool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	cfg := h.session.Config()
	cfg.Subagent = "worker"
	s, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t.Context(), s, "go")
	if len(h.approver.requests) != 1 || h.approver.requests[0].Subagent != "worker" {
		t.Fatalf("approvals = %+v", h.approver.requests)
	}
	if d := denied(t, evs); d.Reason != "The user denied this call. Stop and report it." {
		t.Fatalf("denied = %+v", d)
	}
}
