package agent

import (
	"context"
	"iter"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Session is the door into a session, all a client needs: ops in
// (Submit, or Send for one turn at a time), events out, its id, and Wait
// for the turns to end. Front ends, subagent drivers and commands change
// the conversation through ops, never around them.
type Session struct{ s *session }

// Submit hands the session an op and returns its id, which every event
// the op causes carries. It never blocks.
func (d *Session) Submit(op protocol.Op) (string, error) { return d.s.Submit(op) }

// Events is the session's event stream. It closes after Shutdown, once
// the queued turns have ended.
func (d *Session) Events() <-chan protocol.Event { return d.s.out.events }

// Send submits a user turn and yields its events up to its done (see
// session.Send).
func (d *Session) Send(ctx context.Context, text string) iter.Seq[protocol.Event] {
	return d.s.Send(ctx, text)
}

// ID is the id of the conversation the session is in.
func (d *Session) ID() string { return d.s.ID() }

// Wait blocks until the running and queued turns have ended.
func (d *Session) Wait() { d.s.Wait() }

// Owner is the session as the one who built it holds it: the door and the
// wiring behind it (history, resume, the session's own tool calls and side
// prompts, usage and spending, the live gate and tools, events it adds to
// the stream). Only the composition root, which answers for the wiring,
// holds it; clients get the door.
type Owner struct{ *session }

// Door is the session as its clients see it.
func (o *Owner) Door() *Session { return &Session{o.session} }
