package agent_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// centPerToken prices every token of test-model at one cent; a scripted
// step (10 in, 5 out) costs $0.15. Other models have no price.
func centPerToken(_, model string, u llm.Usage) (float64, bool) {
	if model != "test-model" {
		return 0, false
	}
	return 0.01 * float64(u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens), true
}

func toolLoop(n int) []replay.Response {
	var rs []replay.Response
	for i := range n {
		// Distinct inputs: the repeat guard would stop a third identical call.
		rs = append(rs, resp(toolCall(fmt.Sprint("c", i), "echo", fmt.Sprintf(`{"x":%d}`, i))))
	}
	return rs
}

func TestSessionCeilingStopsBeforeTheRequestThatWouldPassIt(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	h := newHarness(t, options{spend: agent.Spend{Cost: centPerToken, Session: 0.40}}, []*fakeTool{echo}, toolLoop(10)...)
	evs := h.collect(t.Context(), "go")
	// Two steps spend $0.30; a third, estimated at $0.15, would pass $0.40.
	if n := len(h.wire.requests()); n != 2 {
		t.Fatalf("the provider saw %d requests, want 2 (the third would pass the ceiling)", n)
	}
	d, _ := find[protocol.DoneEvent](evs)
	if d.Reason != protocol.StopSpendLimit || d.Ceiling != agent.CeilingSession {
		t.Fatalf("done = %+v, want reason spend-limit, ceiling maxSpendUsd", d)
	}
	if d.CostUSD == nil || math.Abs(*d.CostUSD-0.30) > 1e-9 {
		t.Fatalf("done cost = %v, want $0.30", d.CostUSD)
	}
	var said bool
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, `"maxSpendUsd"`) && strings.Contains(n.Text, "$0.4000") {
			said = true
		}
	}
	if !said {
		t.Fatalf("no notice names the ceiling and how to raise it: %v", types(evs))
	}
	// The next turn is refused before any request too: the session is spent.
	h.collect(t.Context(), "more")
	if n := len(h.wire.requests()); n != 2 {
		t.Fatalf("a turn after the ceiling sent %d more requests", n-2)
	}
}

func TestTurnCeilingResetsWithEachTurn(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	h := newHarness(t, options{spend: agent.Spend{Cost: centPerToken, Turn: 0.20}}, []*fakeTool{echo}, toolLoop(10)...)
	for turn := 1; turn <= 2; turn++ {
		evs := h.collect(t.Context(), "go")
		d, _ := find[protocol.DoneEvent](evs)
		if d.Reason != protocol.StopSpendLimit || d.Ceiling != agent.CeilingTurn {
			t.Fatalf("turn %d done = %+v, want the per-turn ceiling", turn, d)
		}
		if n := len(h.wire.requests()); n != turn {
			t.Fatalf("after turn %d the provider saw %d requests, want %d", turn, n, turn)
		}
	}
	sp := h.session.Spending()
	if math.Abs(sp.Session-0.30) > 1e-9 || math.Abs(sp.Turn-0.15) > 1e-9 || len(sp.Unpriced) != 0 {
		t.Fatalf("spending = %+v", sp)
	}
}

func TestAnUnpricedModelIsNotStoppedButSaysTheCeilingIsNotKept(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	noPrice := func(string, string, llm.Usage) (float64, bool) { return 0, false }
	h := newHarness(t, options{spend: agent.Spend{Cost: noPrice, Session: 0.01}, maxSteps: 3}, []*fakeTool{echo}, toolLoop(10)...)
	evs := h.collect(t.Context(), "go")
	if n := len(h.wire.requests()); n != 3 {
		t.Fatalf("the provider saw %d requests, want the step cap of 3", n)
	}
	d, _ := find[protocol.DoneEvent](evs)
	if d.Reason != protocol.StopStepLimit || d.CostUSD != nil {
		t.Fatalf("done = %+v, want step-limit with no cost (unknown, not zero)", d)
	}
	notices := 0
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, "not kept") {
			notices++
		}
	}
	if notices != 1 {
		t.Fatalf("%d notices that the ceiling is not kept, want 1", notices)
	}
	if sp := h.session.Spending(); len(sp.Unpriced) != 1 || sp.Unpriced[0] != "test-model" || sp.Session != 0 {
		t.Fatalf("spending = %+v", sp)
	}
}

func TestMaxStepsReplacesTheVariantsCap(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	h := newHarness(t, options{maxSteps: 4}, []*fakeTool{echo}, toolLoop(10)...)
	evs := h.collect(t.Context(), "go")
	if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopStepLimit {
		t.Fatalf("reason = %q, want step-limit", d.Reason)
	}
	if echo.runs.Load() != 4 || len(h.wire.requests()) != 4 {
		t.Fatalf("tool ran %d times over %d requests, want 4 (the default agent's cap is 50)", echo.runs.Load(), len(h.wire.requests()))
	}
}

// A compaction's summary is a model call like a step: it is priced into
// the session's spend and its model's usage, so /cost's dollars and the
// ceilings agree with the tokens the session reports.
func TestACompactionsSummaryIsPriced(t *testing.T) {
	var rs []replay.Response
	for i := range 6 {
		rs = append(rs, resp(llm.TextDelta{Text: fmt.Sprint("answer ", i)}))
	}
	h := newHarness(t, options{spend: agent.Spend{Cost: centPerToken}, commands: compactCommand{}}, nil, rs...)
	for i := range 5 {
		h.collect(t.Context(), fmt.Sprint("prompt ", i))
	}
	// /compact waits in the queue: it runs once the last turn has ended.
	if r := compactNow(t, h.session, "/compact"); r.Error != "" {
		t.Fatalf("compact: %+v", r)
	}
	// Five steps and the summary, each 10 in and 5 out at a cent a token.
	sp := h.session.Spending()
	if math.Abs(sp.Session-0.90) > 1e-9 {
		t.Fatalf("session spend = %v, want $0.90 (the summary's $0.15 included)", sp.Session)
	}
	u := h.session.Usage()
	if len(sp.Models) != 1 || sp.Models[0].Usage != u {
		t.Fatalf("usage by model = %+v, want all of the session's %+v", sp.Models, u)
	}
}

// Every model call the session is charged for is reported at once as the
// session's new total, a one-off prompt outside any turn (/memory's, like
// /compact's summary) too, so a front end that shows the total never sums
// turns of its own. The total is the one /cost reads.
func TestUsageEventsCarryTheSessionsTotal(t *testing.T) {
	h := newHarness(t, options{spend: agent.Spend{Cost: centPerToken}}, nil,
		resp(llm.TextDelta{Text: "hi"}), resp(llm.TextDelta{Text: "merged"}), resp(llm.TextDelta{Text: "again"}))
	evs := h.collect(t.Context(), "go")
	u, ok := find[protocol.UsageEvent](evs)
	if !ok || u.Usage != (protocol.Usage{InputTokens: 10, OutputTokens: 5}) || u.CostUSD == nil || math.Abs(*u.CostUSD-0.15) > 1e-9 {
		t.Fatalf("after one step: usage event %+v (found %v), want 10 in, 5 out, $0.15", u, ok)
	}
	if _, err := h.session.CompleteOn(t.Context(), "", "You merge notes.", "merge these"); err != nil {
		t.Fatal(err)
	}
	evs = h.collect(t.Context(), "more")
	var last protocol.UsageEvent
	n := 0
	for _, e := range evs {
		if u, ok := e.(protocol.UsageEvent); ok {
			last, n = u, n+1
		}
	}
	// The one-off prompt's total comes first, then the turn's step.
	if n != 2 || last.Usage != (protocol.Usage{InputTokens: 30, OutputTokens: 15}) || last.CostUSD == nil || math.Abs(*last.CostUSD-0.45) > 1e-9 {
		t.Fatalf("%d usage events, the last %+v; want 2, the last 30 in, 15 out, $0.45", n, last)
	}
	sp := h.session.Spending()
	if sp.Tokens != (llm.Usage{InputTokens: 30, OutputTokens: 15}) || math.Abs(sp.Session-*last.CostUSD) > 1e-9 {
		t.Fatalf("/cost's spending %+v differs from the usage event %+v", sp, last)
	}
}

// A one-off prompt's usage reaches the recorder, so the stored session's
// total counts it as the session's own does; a compaction's summary does
// not, since its marker carries its usage already.
func TestTheRecorderKeepsUsageNoMessageCarries(t *testing.T) {
	var rs []replay.Response
	for i := range 7 {
		rs = append(rs, resp(llm.TextDelta{Text: fmt.Sprint("answer ", i)}))
	}
	j := &journal{charges: true}
	s := compactingSession(t, replay.New("r", rs), 0, 0, j)
	for i := range 5 {
		for range s.Send(t.Context(), fmt.Sprint("prompt ", i)) {
		}
	}
	if _, err := s.CompleteOn(t.Context(), "", "You merge notes.", "merge these"); err != nil {
		t.Fatal(err)
	}
	if r := compactNow(t, s, "/compact"); r.Error != "" {
		t.Fatalf("compact: %+v", r)
	}
	var charged, compacted int
	for _, l := range j.lines() {
		switch {
		case strings.HasPrefix(l, "charged "):
			charged++
			if !strings.HasSuffix(l, " test-model 10/5") {
				t.Errorf("charged line %q, want the prompt's model and usage", l)
			}
		case strings.HasPrefix(l, "compact "):
			compacted++
		}
	}
	if charged != 1 || compacted != 1 {
		t.Fatalf("recorder saw %d charged calls and %d compactions, want 1 and 1:\n%s", charged, compacted, strings.Join(j.lines(), "\n"))
	}
}
