package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// The settings commands submit a Configure op: the session applies it at
// once between turns, or when the running turn ends, and announces it.

func runAgent(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	s := h.conv
	if args == "" {
		current := s.Variant().Name
		var choices []protocol.Choice
		for _, v := range agent.Variants() {
			label := v.Name
			if v.Name == current {
				label += " (current)"
			}
			choices = append(choices, protocol.Choice{Label: label, Detail: v.Summary, Line: "/agent " + v.Name})
		}
		return agent.CommandOutcome{Output: "pick an agent", Choices: choices}, nil
	}
	if _, err := s.Submit(protocol.Configure{Agent: args}); err != nil {
		return agent.CommandOutcome{}, err
	}
	v, _ := agent.VariantNamed(args)
	mode := "it may change files and run commands"
	if v.ReadOnly {
		mode = "read-only"
	}
	return text(fmt.Sprintf("agent is %s from the next turn: thinking %s, %s", v.Name, v.Thinking, mode)), nil
}

// runMode shows or switches the permission mode; a switch applies at
// once, even during a turn.
func runMode(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	if args == "" {
		current := h.conv.Mode()
		var choices []protocol.Choice
		for _, m := range permission.Modes() {
			label := m.String()
			if m == current {
				label += " (current)"
			}
			choices = append(choices, protocol.Choice{Label: label, Line: "/mode " + m.String()})
		}
		return agent.CommandOutcome{Output: "pick a permission mode", Choices: choices}, nil
	}
	if _, err := h.conv.Submit(protocol.Configure{Mode: args}); err != nil {
		return agent.CommandOutcome{}, err
	}
	return text("permission mode is " + h.conv.Mode().String()), nil
}

// runPlan prints the plan last approved in this conversation, as the
// person approved it; a resumed session has it from its history.
func runPlan(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	plan, ok := agent.LastApprovedPlan(h.conv.History())
	if !ok {
		return text("no plan has been approved in this session; in plan mode (shift-tab, or /mode plan) the agent presents one"), nil
	}
	return text(plan), nil
}

func runThink(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	s := h.conv
	if args == "" {
		current := string(s.Variant().Thinking)
		var choices []protocol.Choice
		for _, l := range []llm.Thinking{llm.ThinkOff, llm.ThinkLow, llm.ThinkMedium, llm.ThinkHigh, llm.ThinkMax} {
			label := string(l)
			if label == current {
				label += " (current)"
			}
			choices = append(choices, protocol.Choice{Label: label, Line: "/think " + string(l)})
		}
		return agent.CommandOutcome{Output: "pick a thinking level", Choices: choices}, nil
	}
	if _, err := s.Submit(protocol.Configure{Thinking: args}); err != nil {
		return agent.CommandOutcome{}, err
	}
	return text(fmt.Sprintf("thinking is %s from the next turn", args)), nil
}

func runModel(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	if args == "" {
		return runModels(ctx, h, "")
	}
	if strings.ContainsAny(args, " \t") {
		return agent.CommandOutcome{}, fmt.Errorf("a model id has no spaces: %q", args)
	}
	if _, err := h.conv.Submit(protocol.Configure{Model: args}); err != nil {
		return agent.CommandOutcome{}, err
	}
	return text(fmt.Sprintf("model is %s from the next turn (not checked: the provider will say if it does not know it)", args)), nil
}

// modelsTimeout bounds how long /models waits for the provider.
const modelsTimeout = 20 * time.Second

func runModels(ctx context.Context, h env, _ string) (agent.CommandOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	models, warning, err := h.ListModels(ctx)
	if err != nil {
		return agent.CommandOutcome{}, fmt.Errorf("listing models: %w (use /model ID to set one by name)", err)
	}
	if len(models) == 0 {
		return text("the provider listed no models; use /model ID"), nil
	}
	current := h.conv.Model()
	choices := make([]protocol.Choice, len(models))
	for i, m := range models {
		label := m
		if m == current {
			label += " (current)"
		}
		choices[i] = protocol.Choice{Label: label, Line: "/model " + m}
	}
	out := fmt.Sprintf("%d models from %s", len(models), h.ProviderLabel())
	if warning != "" {
		out = warning
	}
	return agent.CommandOutcome{Output: out, Choices: choices}, nil
}
