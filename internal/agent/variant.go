package agent

import (
	"fmt"
	"github.com/shiro-neko/shiro/internal/protocol"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Variant is an agent preset: how hard it thinks, how many steps a turn may
// take, whether it may write, and what it is told on top of the prompt.
type Variant struct {
	Name     string
	Thinking llm.Thinking
	MaxSteps int
	// ReadOnly withholds every mutating tool from the request and the
	// prompt.
	ReadOnly bool
	Appendix string
	// Summary is one line for people choosing an agent.
	Summary string
}

// Variants returns the presets in menu order.
func Variants() []Variant {
	return []Variant{
		DefaultVariant(),
		{Name: "quick", Thinking: llm.ThinkOff, MaxSteps: 12, Summary: "small, clear changes: no deliberation, short answers",
			Appendix: "You are the quick agent: act directly on small, clear requests. Skip the task list and long deliberation; make the change, check it, and answer briefly."},
		{Name: "deep", Thinking: llm.ThinkMax, MaxSteps: 80, Summary: "hard problems: several hypotheses, every step verified",
			Appendix: "You are the deep agent: for hard problems. Form several hypotheses before acting, batch your reads, verify each step, and record durable findings with remember."},
		{Name: "plan", Thinking: llm.ThinkHigh, MaxSteps: 50, ReadOnly: true, Summary: "read-only: investigates and writes an ordered plan",
			Appendix: "You are the plan agent: you cannot modify files or run commands. Investigate, then produce a concrete, ordered plan with the files to change and how to verify each step. Never describe edits as if you had made them."},
		{Name: "review", Thinking: llm.ThinkHigh, MaxSteps: 50, ReadOnly: true, Summary: "read-only: reviews a change and reports defects by severity",
			Appendix: "You are the review agent: you cannot modify files or run commands. Review the change or code you are pointed at and report defects in order of severity, each with its file and line and a suggested fix."},
	}
}

// DefaultVariant is the general-purpose agent.
func DefaultVariant() Variant {
	return Variant{Name: "default", Thinking: llm.ThinkMedium, MaxSteps: 50, Summary: "the general-purpose agent"}
}

// VariantNamed finds a variant, with an error listing the valid names.
func VariantNamed(name string) (Variant, error) {
	var names []string
	for _, v := range Variants() {
		if v.Name == name {
			return v, nil
		}
		names = append(names, v.Name)
	}
	return Variant{}, fmt.Errorf("unknown agent %q; available: %s", name, strings.Join(names, ", "))
}

// agentInfos describes the variants for front ends (a picker, an editor's
// session modes).
func agentInfos() []protocol.AgentInfo {
	vs := Variants()
	out := make([]protocol.AgentInfo, len(vs))
	for i, v := range vs {
		out[i] = protocol.AgentInfo{Name: v.Name, Description: v.Summary, ReadOnly: v.ReadOnly}
	}
	return out
}
