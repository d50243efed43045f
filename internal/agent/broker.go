package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// broker turns the gate's approval requests and the ask tool's questions
// into events, and the Approval and Answer ops that name them back into
// answers. It is the session's Approver and tool.Person. A subagent's
// session shares its parent's broker, so its requests reach the parent's
// front end, which is the only one a person watches.
//
// While nobody attends the session (headless without an answer channel, or
// after Shutdown), requests are decided by policy at once: approvals are
// denied, questions fail.
type broker struct {
	emit func(protocol.Event)

	mu       sync.Mutex
	seq      int
	attended bool
	pending  map[string]*request
}

// request is one open approval or question.
type request struct {
	approval chan protocol.Approval
	answer   chan protocol.Answer
}

func newBroker(emit func(protocol.Event), attended bool) *broker {
	return &broker{emit: emit, attended: attended, pending: map[string]*request{}}
}

// open registers a request and returns its id, or "" when nobody attends.
func (b *broker) open(r *request, prefix string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.attended {
		return ""
	}
	b.seq++
	id := prefix + strconv.Itoa(b.seq)
	b.pending[id] = r
	return id
}

// close forgets id; it reports whether it was still open.
func (b *broker) close(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.pending[id]
	delete(b.pending, id)
	return ok
}

// Approve implements Approver.
func (b *broker) Approve(ctx context.Context, req ApprovalRequest) Reply {
	r := &request{approval: make(chan protocol.Approval, 1)}
	id := b.open(r, "approval-")
	if id == "" {
		return unattendedReply(req)
	}
	ev := req.event()
	ev.ID = id
	b.emit(ev)
	select {
	case a, ok := <-r.approval:
		if !ok {
			return denied("user", "No one is left to approve this call (the session is closing), so it was denied.")
		}
		return replyOf(a, req.Sandbox != nil)
	case <-ctx.Done():
		b.withdraw(id)
		return denied("user", "The turn was cancelled before this call was approved.")
	}
}

// replyOf is the one place the person's word on the wire becomes the
// gate's decision. Project reaches the project only on a sandbox offer;
// to a gate's ask it means always.
func replyOf(a protocol.Approval, offer bool) Reply {
	switch a.Decision {
	case protocol.Yes:
		return Reply{Decision: permission.Allow, Scope: ScopeOnce}
	case protocol.Always:
		return Reply{Decision: permission.Allow, Scope: ScopeSession}
	case protocol.Project:
		if offer {
			return Reply{Decision: permission.Allow, Scope: ScopeProject}
		}
		return Reply{Decision: permission.Allow, Scope: ScopeSession}
	}
	return denied("user", a.Reason)
}

func denied(by, reason string) Reply {
	return Reply{Decision: permission.Deny, By: by, Reason: reason}
}

// unattendedReply is the policy when nobody can be asked. A repeated
// identical call is named as such: no one is there to judge whether the
// model is looping.
func unattendedReply(req ApprovalRequest) Reply {
	name := req.Tool.Name
	if req.Repeated {
		return denied("repeat", fmt.Sprintf("Denied: this is the third identical %s call this turn and no one is there to ask. Try a different approach.", name))
	}
	return denied("headless", fmt.Sprintf("Denied: %s needs approval and headless mode has no one to ask (the user can rerun with --yolo).", name))
}

// ErrNobodyToAsk is the ask tool's error when nobody attends the session.
var ErrNobodyToAsk = errors.New("no one is attending this session, so the question cannot be asked; decide for yourself")

// Ask implements tool.Person.
func (b *broker) Ask(ctx context.Context, callID string, q tool.Question) (protocol.Answer, error) {
	r := &request{answer: make(chan protocol.Answer, 1)}
	id := b.open(r, "question-")
	if id == "" {
		return protocol.Answer{}, ErrNobodyToAsk
	}
	b.emit(protocol.QuestionEvent{ID: id, CallID: callID, Question: q.Text, Options: q.Options, Multiple: q.Multiple, Plan: q.Plan})
	select {
	case a, ok := <-r.answer:
		if !ok {
			return protocol.Answer{}, ErrNobodyToAsk
		}
		return a, nil
	case <-ctx.Done():
		b.withdraw(id)
		return protocol.Answer{}, ctx.Err()
	}
}

// withdraw closes a request its caller stopped waiting for and tells the
// front end, so no prompt stays open that nobody needs.
func (b *broker) withdraw(id string) {
	if b.close(id) {
		b.emit(protocol.WithdrawnEvent{ID: id})
	}
}

// answerApproval delivers an Approval op.
func (b *broker) answerApproval(a protocol.Approval) error {
	b.mu.Lock()
	r, ok := b.pending[a.ID]
	if ok && r.approval != nil {
		delete(b.pending, a.ID)
	}
	b.mu.Unlock()
	if !ok || r.approval == nil {
		return fmt.Errorf("approval %q: %w", a.ID, protocol.ErrUnknownRequest)
	}
	r.approval <- a
	return nil
}

// answerQuestion delivers an Answer op.
func (b *broker) answerQuestion(a protocol.Answer) error {
	b.mu.Lock()
	r, ok := b.pending[a.ID]
	if ok && r.answer != nil {
		delete(b.pending, a.ID)
	}
	b.mu.Unlock()
	if !ok || r.answer == nil {
		return fmt.Errorf("question %q: %w", a.ID, protocol.ErrUnknownRequest)
	}
	r.answer <- a
	return nil
}

// detach is Shutdown's half of the broker: nobody will answer from now on,
// so open requests are settled by policy (approvals denied, questions
// unanswerable) and later ones never open. Closing a request's channel is
// what tells its waiter.
func (b *broker) detach() {
	b.mu.Lock()
	b.attended = false
	open := b.pending
	b.pending = map[string]*request{}
	b.mu.Unlock()
	for id, r := range open {
		if r.approval != nil {
			close(r.approval)
		} else {
			close(r.answer)
		}
		b.emit(protocol.WithdrawnEvent{ID: id})
	}
}
