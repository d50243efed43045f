package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// endings logs every ending a hook heard, as "name:continued/may".
type endings struct {
	mu  sync.Mutex
	log []string
}

func (l *endings) hook(name string, reply func(agent.TurnEnd) string) hookFuncs {
	return hookFuncs{ended: func(_ context.Context, e agent.TurnEnd) agent.Ending {
		l.mu.Lock()
		l.log = append(l.log, fmt.Sprintf("%s:%d/%v", name, e.Continued, e.MayContinue))
		l.mu.Unlock()
		if reply == nil {
			return agent.Ending{}
		}
		return agent.Ending{Continue: reply(e)}
	}}
}

// A hook that sends the model back has its message stored as the
// person's and shown; the next ending tells it the turn was continued
// (stop_hook_active); the turn is one turn with one done.
func TestAnEndedHookSendsTheModelBackInTheSameTurn(t *testing.T) {
	var l endings
	stop := l.hook("stop", func(e agent.TurnEnd) string {
		if e.Continued == 0 {
			return "run the tests first"
		}
		return ""
	})
	h := newHarness(t, options{hooks: agent.Chain(stop, l.hook("watch", nil))}, nil,
		resp(llm.TextDelta{Text: "done"}), resp(llm.TextDelta{Text: "tests pass"}))
	evs := h.collect(t.Context(), "go")
	if want := []string{"stop:0/true", "stop:1/true", "watch:1/true"}; !slices.Equal(l.log, want) {
		t.Fatalf("endings heard %q, want %q (a watcher after the hook that continued hears only the last)", l.log, want)
	}
	reqs := h.wire.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != llm.RoleUser || last.PlainText() != "run the tests first" {
		t.Fatalf("the second request ends with %+v", last)
	}
	if n, ok := find[protocol.NoticeEvent](evs); !ok || n.Text != "run the tests first" {
		t.Errorf("the continuation was not shown: %v", types(evs))
	}
	dones := 0
	for _, e := range evs {
		if d, ok := e.(protocol.DoneEvent); ok {
			dones++
			if d.Reason != protocol.StopEnd {
				t.Errorf("done = %+v", d)
			}
		}
	}
	if dones != 1 {
		t.Fatalf("%d done events, want 1", dones)
	}
}

// A hook that always objects cannot keep the model working: past
// MaxContinues the ending no longer allows it, and the turn ends.
func TestContinuationsAreBounded(t *testing.T) {
	var l endings
	h := newHarness(t, options{maxContinues: 2, hooks: l.hook("nag", func(agent.TurnEnd) string { return "again" })}, nil,
		resp(llm.TextDelta{Text: "1"}), resp(llm.TextDelta{Text: "2"}), resp(llm.TextDelta{Text: "3"}), resp(llm.TextDelta{Text: "4"}))
	h.collect(t.Context(), "go")
	if want := []string{"nag:0/true", "nag:1/true", "nag:2/false"}; !slices.Equal(l.log, want) {
		t.Fatalf("endings heard %q, want %q", l.log, want)
	}
	if n := len(h.wire.requests()); n != 3 {
		t.Fatalf("%d model calls, want 3", n)
	}
}

// A turn that ends otherwise than by the model (here its input is
// refused) is heard once, and cannot be continued.
func TestExpandRefusesATurnBeforeAnythingIsSent(t *testing.T) {
	var l endings
	refuse := hookFuncs{expand: func(_ context.Context, in agent.TurnInput) agent.TurnInput {
		in.Refusal = "prompt blocked by policy: it names a secret"
		return in
	}}
	never := hookFuncs{expand: func(context.Context, agent.TurnInput) agent.TurnInput {
		t.Error("an Expand hook after a refusal ran")
		return agent.TurnInput{}
	}}
	h := newHarness(t, options{hooks: agent.Chain(refuse, never, l.hook("end", func(agent.TurnEnd) string { return "go on" }))}, nil,
		resp(llm.TextDelta{Text: "never sent"}))
	evs := h.collect(t.Context(), "print the key")
	if n := len(h.wire.requests()); n != 0 {
		t.Fatalf("%d model calls after a refusal", n)
	}
	if e, ok := find[protocol.ErrorEvent](evs); !ok || !strings.Contains(e.Error, "blocked by policy") || e.Op == "" {
		t.Fatalf("the refusal was not shown as the turn's error: %v", types(evs))
	}
	if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopError {
		t.Fatalf("done = %+v", d)
	}
	if want := []string{"end:0/false"}; !slices.Equal(l.log, want) {
		t.Fatalf("endings heard %q, want %q", l.log, want)
	}
	if len(h.session.History()) != 0 {
		t.Fatalf("a refused turn entered the history: %+v", h.session.History())
	}
}

// Chained Setup hooks: notices add up, and a later registry wins.
func TestChainedSetupsAddUp(t *testing.T) {
	a := hookFuncs{setup: func(context.Context) agent.TurnSetup {
		return agent.TurnSetup{Notices: []string{"a"}, Model: "ignored without a provider"}
	}}
	b := hookFuncs{setup: func(context.Context) agent.TurnSetup { return agent.TurnSetup{Notices: []string{"b"}} }}
	got := agent.Chain(a, nil, b).Setup(t.Context())
	if !slices.Equal(got.Notices, []string{"a", "b"}) || got.Model != "" {
		t.Fatalf("chained setup = %+v", got)
	}
}
