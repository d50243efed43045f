package agent

import (
	"context"
	"iter"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Send submits a user turn and yields the session's events until that
// turn's DoneEvent (the one carrying its op id). It is for clients that
// run one turn at a time and are the session's only reader (tests, the
// task tool driving a subagent). Approvals and
// questions arrive as events like any other; answer them with Submit,
// which never blocks, from inside the loop. Cancelling ctx, or stopping the
// iteration early, interrupts the turn (its remaining events are still
// drained, so the session stays usable).
func (s *session) Send(ctx context.Context, text string) iter.Seq[protocol.Event] {
	return s.sendTurn(ctx, protocol.UserTurn{Text: text})
}

// sendTurn is Send for a turn with more than text (pictures).
func (s *session) sendTurn(ctx context.Context, turn protocol.UserTurn) iter.Seq[protocol.Event] {
	return func(yield func(protocol.Event) bool) {
		id, err := s.Submit(turn)
		if err != nil {
			yield(protocol.ErrorEvent{Error: err.Error()})
			return
		}
		stop := context.AfterFunc(ctx, func() { _, _ = s.Submit(protocol.Interrupt{}) })
		defer stop()
		listening := true
		for e := range s.Events() {
			if listening && !yield(e) {
				listening = false
				_, _ = s.Submit(protocol.Interrupt{})
			}
			if done, ok := e.(protocol.DoneEvent); ok && done.Op == id {
				return
			}
		}
	}
}
