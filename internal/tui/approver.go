package tui

import (
	"context"
	"errors"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
)

// Approver is the terminal UI's agent.Approver and askuser.Asker. Approve
// and Ask run on the agent's goroutines: each queues its request for the
// program and blocks until the person answers, the call's context ends or
// the UI closes. Requests are served one at a time, approvals and
// questions alike, so a subagent's call never hides the main one and a
// question never covers an approval.
//
// Build it before app.Open (the gate and the ask tool need it) and hand
// the same value to Run.
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

// errClosed is what a wait returns when the UI has closed.
var errClosed = errors.New("shiro is closing")

// hold waits for the one prompt slot; release gives it back. It fails
// with ctx's error or errClosed.
func (a *Approver) hold(ctx context.Context) (release func(), err error) {
	select {
	case a.turn <- struct{}{}:
		return func() { <-a.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-a.closed:
		return nil, errClosed
	}
}

// await waits for the reply to a request pushed to the program. When the
// call's context ends first, the program is told, so it takes the prompt
// down rather than leave a question nobody waits for.
func await[T any](ctx context.Context, a *Approver, reply <-chan T) (T, error) {
	var zero T
	select {
	case v := <-reply:
		return v, nil
	case <-ctx.Done():
		a.box.push(promptWithdrawn{})
		return zero, ctx.Err()
	case <-a.closed:
		return zero, errClosed
	}
}

// promptWithdrawn tells the program that a request's call ended before the
// person answered.
type promptWithdrawn struct{}

// approvalAsk is one open approval: the request, where the answer goes,
// and the context of the call (when it ends the prompt is moot).
type approvalAsk struct {
	req   agent.ApprovalRequest
	reply chan agent.Answer
	ctx   context.Context
}

// Approve implements agent.Approver.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Answer, string, string) {
	release, err := a.hold(ctx)
	if err != nil {
		return agent.AnswerDeny, "user", deniedBecause(err)
	}
	defer release()
	ask := approvalAsk{req: req, reply: make(chan agent.Answer, 1), ctx: ctx}
	a.box.push(ask)
	ans, err := await(ctx, a, ask.reply)
	if err != nil {
		return agent.AnswerDeny, "user", deniedBecause(err)
	}
	return ans, "", ""
}

// questionAsk is one open question of the ask tool.
type questionAsk struct {
	q     askuser.Question
	reply chan askuser.Answer
	ctx   context.Context
}

// Ask implements askuser.Asker: the question opens under its ask call in
// the transcript once no other prompt is open.
func (a *Approver) Ask(ctx context.Context, q askuser.Question) (askuser.Answer, error) {
	release, err := a.hold(ctx)
	if err != nil {
		return askuser.Answer{}, err
	}
	defer release()
	ask := questionAsk{q: q, reply: make(chan askuser.Answer, 1), ctx: ctx}
	a.box.push(ask)
	return await(ctx, a, ask.reply)
}

func deniedBecause(err error) string {
	if errors.Is(err, errClosed) {
		return closedReason
	}
	return cancelledReason
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
