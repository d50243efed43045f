package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// mergeCommand makes a one-off model call beside the turns, as /memory
// and /compact do: a call no turn's done event reports.
type mergeCommand struct{ ref *sessionRef }

func (mergeCommand) List() []protocol.CommandInfo {
	return []protocol.CommandInfo{{Name: "merge", Summary: "one model call outside a turn"}}
}
func (mergeCommand) Immediate(string) bool { return false }
func (c mergeCommand) Run(ctx context.Context, _ string) (agent.CommandOutcome, error) {
	text, err := c.ref.s.CompleteOn(ctx, "", "You merge notes.", "merge these")
	return agent.CommandOutcome{Output: "merged: " + text}, err
}

// dollarPerMillion prices every token at $1 per million.
func dollarPerMillion(_, _ string, u llm.Usage) (float64, bool) {
	return float64(u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens) / 1e6, true
}

// The status line shows the session's dollars, and counts the call a
// command made outside any turn: the turn's 5,240 tokens cost $0.0052,
// the merge's 520 more make $0.0058.
func TestStatusLineShowsTheSessionsDollars(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "side.jsonl", spend: agent.Spend{Cost: dollarPerMillion},
		commands: func(r *sessionRef) agent.Commander { return mergeCommand{r} }})
	d := startDriver(t, a.Owner, Options{})
	d.submit("hello")
	d.waitText("I am shiro", "↑5.2k ↓40 · cache 58% · $0.0052")
	d.submit("/merge")
	d.waitText("merged: merged", "↑5.7k ↓60 · cache 53% · $0.0058")
}

// The farewell counts the same calls as the status line, and says what
// they cost.
func TestFarewellShowsTheSessionsDollars(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "side.jsonl", spend: agent.Spend{Cost: dollarPerMillion},
		commands: func(r *sessionRef) agent.Commander { return mergeCommand{r} }})
	tp := newTap(a.Owner)
	p := runProgram(t, tp, Options{})
	p.typeKeys(t, "hello\r")
	tp.waitSeen(t, "done", 1)
	p.typeKeys(t, "/merge\r")
	tp.waitSeen(t, "command-result", 1)
	p.typeKeys(t, "\x03\x03")
	res, err := p.wait(t)
	if err != nil {
		t.Fatal(err)
	}
	want := "Good bye.\nTokens this session: 1,700 in · 60 out · cache 3,000 read, 1,000 written (53% hit)\nCost this session: $0.0058\n"
	if got := res.Farewell(); got != want {
		t.Fatalf("farewell = %q, want %q", got, want)
	}
}

// A model with no price shows no dollars, in the status line or the
// farewell: never a made-up $0.
func TestAnUnpricedSessionsCostIsUnknown(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 100, OutputTokens: 5}, Unpriced: []string{"house-model"}})
	frame := d.waitText("↑100 ↓5")
	if strings.Contains(frame, "$") {
		t.Fatalf("an unpriced session shows dollars:\n%s", frame)
	}
	r := Result{Usage: protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 100, OutputTokens: 5}, Unpriced: []string{"house-model"}}}
	if got := r.Farewell(); strings.Contains(got, "Cost") || strings.Contains(got, "$") {
		t.Fatalf("farewell = %q", got)
	}
}

// /provider (or /model) brings a new session event: the welcome's header
// names the new provider and model instead of keeping the first ones.
func TestTheHeaderFollowsTheProvider(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test · test-model")
	next := testDescription()
	next.Provider, next.Model = "ollama", "qwen3:8b"
	s.emit(next)
	frame := d.waitText("shiro · ollama · qwen3:8b")
	if strings.Contains(frame, "shiro · Test · test-model") {
		t.Fatalf("the old header is still shown:\n%s", frame)
	}
}
