package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// PlanToolName is the tool the model presents its plan with in plan mode.
const PlanToolName = "present_plan"

// approvedHeading introduces the approved plan in the tool's result, which
// is how the plan is kept with the session (LastApprovedPlan).
const approvedHeading = "Approved plan:\n\n"

type planInput struct {
	Plan string `json:"plan" jsonschema:"The whole plan in markdown: the steps in order, the files to change and how to check each step."`
}

// PlanTool is the tool that ends plan mode: the model presents its plan,
// the person approves it (switching the mode so the same turn goes on to
// make the changes), edits it or sends it back. It is offered in every
// mode, so switching modes leaves the request's tool list, and the
// prompt cache, as they were; outside plan mode it only says so.
func PlanTool() tool.Tool {
	return planTool{tool.New(tool.Def[planInput]{
		Info: tool.Info{
			Name: PlanToolName,
			Description: "Present your plan to the user for approval. Use it only in plan mode, when you have investigated enough to " +
				"say exactly what you will change: give the whole plan in markdown. The user approves it, edits it or asks for changes. " +
				"The result says whether it was approved and which permission mode is now on; once approved, carry out the plan " +
				"in the same turn. Outside plan mode there is nothing to approve: do the work instead.",
			Guidance: "in plan mode, change nothing: investigate, then present the finished plan with " + PlanToolName + " and wait for approval.",
			Set:      tool.SetNone,
			Effect:   tool.Reads,
			Kind:     protocol.KindOther,
			Subject:  tool.NoSubject,
		},
		Check: func(in *planInput) error {
			if in.Plan = strings.TrimSpace(in.Plan); in.Plan == "" {
				return tool.Failf("plan is empty: give the whole plan in markdown")
			}
			return nil
		},
		Plan: func(*planInput) tool.Plan { return tool.Plan{Title: "plan for approval"} },
		Run: func(context.Context, tool.Runtime, *planInput) (tool.Result, error) {
			return tool.Result{}, errors.New(PlanToolName + " is answered by the session's turn, which switches the mode")
		},
	})}
}

// planTool marks its prepared calls, so the turn runs them itself: only
// the turn can switch the session's mode or end with the plan.
type planTool struct{ tool.Tool }

func (t planTool) Prepare(input json.RawMessage) (tool.Prepared, error) {
	p, err := t.Tool.Prepare(input)
	if err != nil {
		return nil, err
	}
	var in planInput
	if err := json.Unmarshal(p.Input(), &in); err != nil {
		return nil, fmt.Errorf("%s: %w", PlanToolName, err)
	}
	return planCall{Prepared: p, plan: strings.TrimSpace(in.Plan)}, nil
}

type planCall struct {
	tool.Prepared
	plan string
}

// presentPlan puts the plan to the person and applies the answer. With
// nobody to ask, the plan stays unapproved and becomes the turn's answer
// (t.finalPlan): the turn ends on it.
func (t *turn) presentPlan(ctx context.Context, callID, plan string) (tool.Result, error) {
	s := t.s
	if s.cfg.Subagent != "" {
		return tool.Text("Subagents do not present plans: report your findings and proposed steps in your final answer."), nil
	}
	if m := s.Mode(); m != permission.ModePlan {
		return tool.Text(fmt.Sprintf("Plan mode is off (the mode is %s), so there is no plan to approve: go ahead with the work.", m)), nil
	}
	q := tool.Question{Text: "Approve this plan?", Plan: plan, Options: []protocol.Option{
		{Label: protocol.PlanApprove, Detail: "approve; edits and commands are asked as usual"},
		{Label: protocol.PlanAcceptEdits, Detail: "approve; file edits in the workspace run without asking"},
		{Label: protocol.PlanKeepPlanning, Detail: "stay in plan mode; say what to change"},
	}}
	a, err := s.broker.Ask(ctx, callID, q)
	if errors.Is(err, ErrNobodyToAsk) {
		t.finalPlan = plan
		return tool.Text("Not approved: nobody is here to approve the plan, so plan mode stays on and nothing may change. " +
			"The plan is your answer; do not call more tools."), nil
	}
	if err != nil {
		return tool.Result{}, err
	}
	approved, mode, out := planOutcome(plan, a)
	if approved {
		s.setMode(mode)
	}
	return tool.Text(out), nil
}

// planOutcome reads the person's answer to a plan: whether it was
// approved, the mode that follows, and what the model is told.
func planOutcome(plan string, a protocol.Answer) (approved bool, mode permission.Mode, out string) {
	text := strings.TrimSpace(a.Text)
	choice := ""
	if len(a.Chosen) > 0 {
		choice = a.Chosen[0]
	}
	switch {
	case !a.Dismissed && (choice == protocol.PlanApprove || choice == protocol.PlanAcceptEdits):
		mode, how := permission.ModeDefault, "default: edits and commands are asked as usual"
		if choice == protocol.PlanAcceptEdits {
			mode, how = permission.ModeAcceptEdits, "accept-edits: file edits inside the workspace run without asking; commands are still asked"
		}
		by := "The user approved your plan."
		if text != "" && text != plan {
			plan, by = text, "The user edited your plan and approved their version: follow it, not yours."
		}
		return true, mode, by + " Plan mode is off; the permission mode is now " + how + ". Carry out the plan now, in this turn.\n\n" + approvedHeading + plan
	case a.Dismissed || text == "":
		return false, permission.ModePlan, "The user closed the plan without approving it. Plan mode stays on: change nothing, and ask what they want changed."
	}
	return false, permission.ModePlan, "The user did not approve the plan. Plan mode stays on: change nothing. Their feedback:\n\n" + text +
		"\n\nRevise the plan and present it again."
}

// answerWithPlan ends a turn whose plan nobody could approve: the plan is
// the model's last word, stored and shown as its answer.
func (t *turn) answerWithPlan() {
	t.emit(protocol.TextEvent{Text: t.finalPlan})
	t.s.appendMessage(llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: t.finalPlan}}})
}

// LastApprovedPlan finds the plan the person last approved in a
// conversation (as edited, when they edited it), for /plan and a resumed
// session.
func LastApprovedPlan(history []llm.Message) (string, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		parts := history[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			r, ok := parts[j].(llm.ToolResult)
			if !ok || r.Name != PlanToolName || r.IsError {
				continue
			}
			if _, plan, found := strings.Cut(r.Output, approvedHeading); found {
				return plan, true
			}
		}
	}
	return "", false
}
