package agent

import (
	"context"
	"errors"
)

// currentCall is the tool call the turn is deciding or running now. Calls
// of one turn go one after another, so a session has at most one.
type currentCall struct {
	id string
	// cancel cancels the call's context; nil until the tool starts.
	cancel context.CancelCauseFunc
	// stopped records an interruptTool that came before the tool started
	// (the gate was still deciding), so the tool never starts.
	stopped bool
}

// errStoppedAlone is the cause a call's context carries when interruptTool
// cancelled it, which tells it apart from the whole turn being cancelled.
var errStoppedAlone = errors.New("the user stopped this tool call")

// interruptTool stops the tool call callID, and only that call: if the
// tool is running, its context is cancelled (bash kills the command's
// process group) and the call fails with the tool's interrupted error; if
// the gate is still deciding it, the tool never starts. Either way the
// turn goes on to the next model call, which reads the error and can
// react. Cancelling the context given to Send still aborts the whole turn.
//
// It reports whether callID is the current call. Naming the call keeps a
// front end whose view lags behind the loop from stopping a later call by
// mistake. It is safe from any goroutine.
func (s *session) interruptTool(callID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.current
	if c == nil || c.id != callID {
		return false
	}
	c.stopped = true
	if c.cancel != nil {
		c.cancel(errStoppedAlone)
	}
	return true
}

// trackCall makes id the current call until the returned func runs.
func (s *session) trackCall(id string) (untrack func()) {
	c := &currentCall{id: id}
	s.mu.Lock()
	s.current = c
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.current == c {
			s.current = nil
		}
	}
}

// startCall hands the current call's cancel func to interruptTool. It
// returns false when the call was stopped before it could start.
func (s *session) startCall(id string, cancel context.CancelCauseFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.current
	if c == nil || c.id != id {
		return true
	}
	c.cancel = cancel
	return !c.stopped
}

// stoppedAlone reports whether the call whose context is ctx was stopped by
// interruptTool while its turn went on.
func (t *turn) stoppedAlone(ctx context.Context) bool {
	return t.ctx.Err() == nil && errors.Is(context.Cause(ctx), errStoppedAlone)
}

// toolInterruptedError replaces a bare context error from a call that was
// stopped on its own, so the model reads what happened rather than
// "context canceled". A tool's own error (bash's) is passed on unchanged.
// Its text is a sentence for the model, hence a type, not errors.New.
type toolInterruptedError struct{}

func (toolInterruptedError) Error() string {
	return "The user interrupted this tool call. It did not finish, so its effects are unknown."
}

// toolNotStartedError is the result of a call stopped before its tool
// started.
type toolNotStartedError struct{}

func (toolNotStartedError) Error() string {
	return "The user stopped this tool call before it started. It did not run."
}
