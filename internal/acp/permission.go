package acp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Option ids of the permission requests shiro makes.
const (
	optionAllowOnce   = "allow-once"
	optionAllowAlways = "allow-always"
	optionAllowProj   = "allow-project"
	optionReject      = "reject"
	optionDismiss     = "dismiss"
	choicePrefix      = "choice-"
)

// askApproval puts an approval request to the client. The chosen option
// becomes the Approval op; a cancelled or failed request is a no.
func (s *session) askApproval(e protocol.ApprovalRequestEvent) {
	req := acp.RequestPermissionRequest{
		SessionId: s.id,
		ToolCall:  approvalCall(s.cwd, e),
		Options:   approvalOptions(e.Grants),
	}
	if e.Sandbox != nil {
		req.Options = sandboxOptions(*e.Sandbox)
	}
	s.ask(e.ID, req, func(resp acp.RequestPermissionResponse, err error) protocol.Op {
		return approvalAnswer(e.ID, resp, err)
	})
}

// approvalCall is the call the request concerns, with the change it would
// make as a diff.
func approvalCall(cwd string, e protocol.ApprovalRequestEvent) acp.ToolCallUpdate {
	call := acp.ToolCallUpdate{
		ToolCallId: acp.ToolCallId(e.CallID),
		Title:      acp.Ptr(callTitle(e.Title, e.Name)),
		Kind:       acp.Ptr(toolKind(e.Kind)),
		Status:     acp.Ptr(acp.ToolCallStatusPending),
		RawInput:   e.Input,
	}
	var notes []string
	if e.Subagent != "" {
		notes = append(notes, fmt.Sprintf("The %s subagent makes this call.", e.Subagent))
	}
	if e.Repeated {
		notes = append(notes, "This is the third identical call this turn: the agent may be going in circles.")
	}
	if e.Sandbox != nil {
		notes = append(notes, fmt.Sprintf("The sandbox refused this command %s. Allowing it runs the command again.", e.Sandbox))
	}
	if e.Leaves != "" {
		notes = append(notes, "Asked because "+e.Leaves+".")
	}
	call.Content = textContent(strings.Join(notes, "\n"))
	if e.Preview != nil {
		call.Content = append(call.Content, diffContent(cwd, e.Preview)...)
		call.Locations = locations(cwd, []string{e.Preview.Path})
	}
	return call
}

func approvalOptions(grants []string) []acp.PermissionOption {
	always := "Always allow"
	if len(grants) > 0 {
		always += " " + strings.Join(grants, ", ")
	}
	return []acp.PermissionOption{
		{OptionId: optionAllowOnce, Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: optionAllowAlways, Name: always, Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: optionReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	}
}

// sandboxOptions are the answers to an offer to allow what the sandbox
// refused: once, for the session, for the project, or not.
func sandboxOptions(r protocol.SandboxRefusal) []acp.PermissionOption {
	return []acp.PermissionOption{
		{OptionId: optionAllowOnce, Name: fmt.Sprintf("Allow %s once and run again", r), Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: optionAllowAlways, Name: fmt.Sprintf("Allow %s for this session", r), Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: optionAllowProj, Name: fmt.Sprintf("Allow %s for this project", r), Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: optionReject, Name: "Keep it refused", Kind: acp.PermissionOptionKindRejectOnce},
	}
}

func approvalAnswer(id string, resp acp.RequestPermissionResponse, err error) protocol.Approval {
	a := protocol.Approval{ID: id, Decision: protocol.No}
	switch {
	case err != nil:
		a.Reason = fmt.Sprintf("The editor did not answer the permission request (%v), so the call was denied.", err)
	case resp.Outcome.Selected != nil:
		switch id := string(resp.Outcome.Selected.OptionId); id {
		case optionAllowOnce:
			a.Decision = protocol.Yes
		case optionAllowAlways:
			a.Decision = protocol.Always
		case optionAllowProj:
			a.Decision = protocol.Project
		case optionReject:
		default:
			a.Reason = fmt.Sprintf("The editor answered with an option shiro did not offer (%q), so the call was denied.", id)
		}
	}
	return a
}

// askQuestion puts the ask tool's question to the client as a permission
// request with one option per choice, and one to leave the choice to the
// agent. ACP has no way to type an answer, so a question without choices
// is dismissed at once and the model decides on its own.
func (s *session) askQuestion(e protocol.QuestionEvent) {
	if len(e.Options) == 0 {
		if _, err := s.inner.Submit(protocol.Answer{ID: e.ID, Dismissed: true}); err != nil {
			s.log.Debug("acp: answer refused", "session", s.id, "err", err)
		}
		return
	}
	req := acp.RequestPermissionRequest{
		SessionId: s.id,
		ToolCall: acp.ToolCallUpdate{
			ToolCallId: acp.ToolCallId(e.CallID),
			Title:      acp.Ptr(e.Question),
			Content:    textContent(questionText(e)),
		},
		Options: questionOptions(e.Options),
	}
	s.ask(e.ID, req, func(resp acp.RequestPermissionResponse, err error) protocol.Op {
		return questionAnswer(e, resp, err)
	})
}

// questionText is the question with what each choice means.
func questionText(e protocol.QuestionEvent) string {
	var b strings.Builder
	if e.Plan != "" {
		b.WriteString(e.Plan + "\n\n")
	}
	b.WriteString(e.Question)
	for _, o := range e.Options {
		if o.Detail != "" {
			fmt.Fprintf(&b, "\n- %s: %s", o.Label, o.Detail)
		}
	}
	return b.String()
}

func questionOptions(choices []protocol.Option) []acp.PermissionOption {
	out := make([]acp.PermissionOption, 0, len(choices)+1)
	for i, o := range choices {
		out = append(out, acp.PermissionOption{
			OptionId: acp.PermissionOptionId(choicePrefix + strconv.Itoa(i)),
			Name:     o.Label,
			Kind:     acp.PermissionOptionKindAllowOnce,
		})
	}
	return append(out, acp.PermissionOption{OptionId: optionDismiss, Name: "None of these: let the agent decide", Kind: acp.PermissionOptionKindRejectOnce})
}

func questionAnswer(e protocol.QuestionEvent, resp acp.RequestPermissionResponse, err error) protocol.Answer {
	a := protocol.Answer{ID: e.ID, Dismissed: true}
	if err != nil || resp.Outcome.Selected == nil {
		return a
	}
	n, convErr := strconv.Atoi(strings.TrimPrefix(string(resp.Outcome.Selected.OptionId), choicePrefix))
	if !strings.HasPrefix(string(resp.Outcome.Selected.OptionId), choicePrefix) || convErr != nil || n < 0 || n >= len(e.Options) {
		return a
	}
	return protocol.Answer{ID: e.ID, Chosen: []string{e.Options[n].Label}}
}

// ask sends one permission request on its own goroutine, so the pump goes
// on forwarding (and may withdraw the request) while the person decides.
// The answer is submitted unless the request was withdrawn meanwhile.
func (s *session) ask(id string, req acp.RequestPermissionRequest, answer func(acp.RequestPermissionResponse, error) protocol.Op) {
	ctx, cancel := context.WithCancel(s.forward)
	s.mu.Lock()
	s.asks[id] = cancel
	s.mu.Unlock()
	s.asking.Go(func() {
		defer cancel()
		resp, err := s.peer.RequestPermission(ctx, req)
		s.mu.Lock()
		_, open := s.asks[id]
		delete(s.asks, id)
		s.mu.Unlock()
		if !open {
			return
		}
		if _, err := s.inner.Submit(answer(resp, err)); err != nil {
			s.log.Debug("acp: answer refused", "session", s.id, "request", id, "err", err)
		}
	})
}

// withdraw abandons the client request for id: the SDK tells the client to
// take its prompt down, and a late answer is ignored.
func (s *session) withdraw(id string) {
	s.mu.Lock()
	cancel, ok := s.asks[id]
	delete(s.asks, id)
	s.mu.Unlock()
	if ok {
		cancel()
	}
}
