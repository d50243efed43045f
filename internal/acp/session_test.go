package acp

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// fakeInner records ops and plays events the test emits.
type fakeInner struct {
	events chan protocol.Event
	ops    chan protocol.Op
}

func (f *fakeInner) Submit(op protocol.Op) (string, error) {
	f.ops <- op
	if _, ok := op.(protocol.Shutdown); ok {
		close(f.events)
	}
	return "op", nil
}

func (f *fakeInner) Events() <-chan protocol.Event { return f.events }

// recordingClient keeps updates; it is never asked for permission here.
type recordingClient struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	changed chan struct{} // closed and replaced on every update
}

func (c *recordingClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

func (c *recordingClient) RequestPermission(ctx context.Context, _ acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	<-ctx.Done()
	return acp.RequestPermissionResponse{}, ctx.Err()
}

func startSession(t *testing.T) (*session, *fakeInner, *recordingClient) {
	t.Helper()
	inner := &fakeInner{events: make(chan protocol.Event, 16), ops: make(chan protocol.Op, 16)}
	peer := &recordingClient{changed: make(chan struct{})}
	s := newSession("s", inner, protocol.SessionEvent{Cwd: t.TempDir(), Agent: "default"}, peer, t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.start()
	t.Cleanup(func() {
		s.end()
		s.wait()
	})
	return s, inner, peer
}

type answer struct {
	resp acp.PromptResponse
	err  error
}

// prompt submits text as a turn and waits for the turn to end.
func (s *session) prompt(ctx context.Context, text string) (acp.PromptResponse, error) {
	return s.promptWith(ctx, text, nil)
}

// run is runTurn for a turn of text alone.
func (s *session) run(ctx context.Context, p *promptTurn, text string) (acp.PromptResponse, error) {
	return s.runTurn(ctx, p, protocol.UserTurn{Text: text})
}

func promptAsync(s *session, ctx context.Context, text string) <-chan answer {
	out := make(chan answer, 1)
	go func() {
		r, err := s.prompt(ctx, text)
		out <- answer{r, err}
	}()
	return out
}

func pending(ops chan protocol.Op) []protocol.Op {
	var out []protocol.Op
	for {
		select {
		case op := <-ops:
			out = append(out, op)
		default:
			return out
		}
	}
}

// A cancel before the prompt's turn has started must not drop the turn
// from the session's queue (no DoneEvent would ever come): the interrupt
// waits for the turn to start.
func TestCancelBeforeTheTurnStartsWaitsForIt(t *testing.T) {
	s, inner, _ := startSession(t)
	done := promptAsync(s, t.Context(), "go")
	if op := <-inner.ops; op != (protocol.UserTurn{Text: "go"}) {
		t.Fatalf("op = %#v", op)
	}
	s.cancel()
	if ops := pending(inner.ops); len(ops) != 0 {
		t.Fatalf("interrupted before the turn started: %#v", ops)
	}
	inner.events <- protocol.TurnStartEvent{Turn: 1, Text: "go"}
	if op := <-inner.ops; op != (protocol.Interrupt{}) {
		t.Fatalf("op = %#v, want the interrupt", op)
	}
	inner.events <- protocol.DoneEvent{}
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
}

// Once the turn runs, a cancelled prompt interrupts at once and still waits
// for the turn's end before answering.
func TestCancelDuringTheTurnInterruptsAtOnce(t *testing.T) {
	s, inner, peer := startSession(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := promptAsync(s, ctx, "go")
	<-inner.ops
	inner.events <- protocol.TurnStartEvent{Turn: 1, Text: "go"}
	inner.events <- protocol.TextEvent{Text: "partial"}
	// The text is forwarded only after the pump bound the turn, so the
	// prompt is known to have started once it arrives.
	waitUpdates(peer, 1)
	cancel()
	if op := <-inner.ops; op != (protocol.Interrupt{}) {
		t.Fatalf("op = %#v", op)
	}
	select {
	case r := <-done:
		t.Fatalf("answered before the turn ended: %+v", r)
	default:
	}
	inner.events <- protocol.DoneEvent{}
	if r := <-done; r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
}

// A turn nobody prompted (one a command queued) is shown with the message
// it runs, and its end answers no prompt.
func TestUnpromptedTurnsAreShown(t *testing.T) {
	s, inner, peer := startSession(t)
	inner.events <- protocol.TurnStartEvent{Turn: 1, Text: "review the diff"}
	inner.events <- protocol.DoneEvent{}
	inner.events <- protocol.NoticeEvent{Text: "after"}
	waitUpdates(peer, 2)
	peer.mu.Lock()
	u := peer.updates[0]
	peer.mu.Unlock()
	if u.UserMessageChunk == nil || u.UserMessageChunk.Content.Text.Text != "review the diff" {
		t.Fatalf("update = %+v", u)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil {
		t.Fatal("an unprompted turn left a prompt behind")
	}
}

// waitUpdates blocks until the client holds n updates.
func waitUpdates(c *recordingClient, n int) {
	for {
		c.mu.Lock()
		got, changed := len(c.updates), c.changed
		c.mu.Unlock()
		if got >= n {
			return
		}
		<-changed
	}
}

// A cancel reaches a prompt still queued behind the running one: it
// answers cancelled without ever reaching the session.
func TestCancelReachesAQueuedPrompt(t *testing.T) {
	s, inner, _ := startSession(t)
	first := promptAsync(s, t.Context(), "one")
	<-inner.ops
	inner.events <- protocol.TurnStartEvent{Turn: 1, Text: "one"}
	// The second prompt is registered before it waits for the slot, as the
	// server's Prompt does.
	queued := s.enqueue()
	second := make(chan answer, 1)
	go func() {
		r, err := s.run(t.Context(), queued, "two")
		second <- answer{r, err}
	}()
	s.cancel()
	if op := <-inner.ops; op != (protocol.Interrupt{}) {
		t.Fatalf("op = %#v", op)
	}
	inner.events <- protocol.DoneEvent{}
	if r := <-first; r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("first = %+v, %v", r.resp, r.err)
	}
	if r := <-second; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("second = %+v, %v", r.resp, r.err)
	}
	if ops := pending(inner.ops); len(ops) != 0 {
		t.Fatalf("the queued prompt reached the session: %#v", ops)
	}
}
