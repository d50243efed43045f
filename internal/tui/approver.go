package tui

import (
	"context"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
)

// Approver is the terminal UI's agent.Approver. Approve runs on the agent's
// goroutine: it queues the request for the program and blocks until the
// person answers, the turn is cancelled or the UI closes. Requests are
// served one at a time, so a subagent's call never hides the main one.
//
// Build it before app.Open (the gate needs it) and hand the same value to
// Run.
type Approver struct {
	box    *inbox
	turn   chan struct{} // capacity 1: held while a prompt is open
	closed chan struct{}
	once   sync.Once
}

// NewApprover makes the approver; it answers nothing until Run shows its
// prompts.
func NewApprover() *Approver {
	return &Approver{box: newInbox(), turn: make(chan struct{}, 1), closed: make(chan struct{})}
}

// approvalAsk is one open question: the request, where the answer goes, and
// the context of the call (when it ends the prompt is moot).
type approvalAsk struct {
	req   agent.ApprovalRequest
	reply chan agent.Answer
	ctx   context.Context
}

// Approve implements agent.Approver.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Answer, string, string) {
	select {
	case a.turn <- struct{}{}:
	case <-ctx.Done():
		return agent.AnswerDeny, "user", cancelledReason
	case <-a.closed:
		return agent.AnswerDeny, "user", closedReason
	}
	defer func() { <-a.turn }()

	ask := approvalAsk{req: req, reply: make(chan agent.Answer, 1), ctx: ctx}
	a.box.push(ask)
	select {
	case ans := <-ask.reply:
		return ans, "", ""
	case <-ctx.Done():
		return agent.AnswerDeny, "user", cancelledReason
	case <-a.closed:
		return agent.AnswerDeny, "user", closedReason
	}
}

const (
	cancelledReason = "The turn was cancelled before this call was approved."
	closedReason    = "shiro was closing, so the call was not approved."
)

// close makes every open and later Approve deny at once.
func (a *Approver) close() { a.once.Do(func() { close(a.closed) }) }

// backgroundOutput is app.Options.BackgroundOutput for the UI: it only
// notes that a background command is alive (the UI shows counts, not the
// output, which bash_status gives the model).
func (a *Approver) backgroundOutput(string, string) { a.box.pokeBackground() }

// BackgroundOutput returns the function to pass as
// app.Options.BackgroundOutput, so the status line follows background
// commands.
func (a *Approver) BackgroundOutput() func(id, chunk string) { return a.backgroundOutput }
