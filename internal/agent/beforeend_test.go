package agent_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// A turn that wrote files and is about to end hears BeforeEnd's message
// once, as a message of its own in the next request, and goes on; the
// second end is final.
func TestBeforeEndTellsTheModelOnceBeforeTheTurnEnds(t *testing.T) {
	var asked atomic.Int32
	w := &fakeTool{name: "write_file", effect: tool.Writes}
	h := newHarness(t, options{beforeEnd: func(context.Context) string {
		asked.Add(1)
		return "a.go:3:1: undefined: x"
	}}, []*fakeTool{w},
		resp(toolCall("c1", "write_file", `{"path":"a.go"}`)),
		resp(llm.TextDelta{Text: "done"}),
		resp(llm.TextDelta{Text: "fixed it, or said why not"}),
	)
	evs := h.collect(t.Context(), "go")
	if n := asked.Load(); n != 1 {
		t.Fatalf("BeforeEnd asked %d times, want once", n)
	}
	reqs := h.wire.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3 (the turn goes on after the message)", len(reqs))
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != llm.RoleUser || !strings.Contains(last.PlainText(), "undefined: x") {
		t.Fatalf("the third request does not end with the message: %+v", last)
	}
	if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopEnd {
		t.Fatalf("done = %+v", d)
	}
}

// A turn that wrote nothing is not held up.
func TestBeforeEndSkipsTurnsThatWroteNothing(t *testing.T) {
	var asked atomic.Int32
	h := newHarness(t, options{beforeEnd: func(context.Context) string { asked.Add(1); return "x" }}, nil,
		resp(llm.TextDelta{Text: "hello"}))
	h.collect(t.Context(), "hi")
	if asked.Load() != 0 || len(h.wire.requests()) != 1 {
		t.Fatalf("asked %d, %d requests", asked.Load(), len(h.wire.requests()))
	}
}
