// Package plugin hosts compiled plugins: they add tools, auto-approve tools,
// block tool calls before they run, append to the system prompt and run
// after each turn.
package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/shiro-neko/shiro/internal/shellguard"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/external"
)

// Plugin extends the agent. Every field but Name is optional.
type Plugin struct {
	Name        string
	Description string
	// Source says where the plugin came from, for /plugins: empty for a
	// builtin, the manifest's file for a manifest plugin.
	Source string
	// Tools are added to the session's registry.
	Tools []tool.Tool
	// ToolManifests are tools a manifest plugin adds; the session builds
	// them, since they need its workspace.
	ToolManifests []external.Manifest
	// AutoApprove names tools whose calls need no approval.
	AutoApprove []string
	// BeforeToolCall returns a non-empty reason to block the call. An error
	// or a panic blocks too: a guard that crashes must fail closed.
	BeforeToolCall func(ctx context.Context, c Call) (string, error)
	// AfterTurn runs when a turn ends; a failure becomes a notice.
	AfterTurn func(ctx context.Context, t tool.TurnSummary) error
	// Appendix joins the system prompt. Write one whenever the plugin can
	// block, so the model is told before it hits a refusal.
	Appendix string
}

// Call is a tool call as a plugin sees it. The gate builds it from what the
// tool says of itself (tool.Info: Mutating is its effect's) and of the call
// (tool.Plan: Writes, Commands), so a plugin that guards writes covers
// every write tool without naming them.
type Call struct {
	Tool     string
	Input    json.RawMessage
	Cwd      string
	Mutating bool
	// Writes are the paths the call would create, change or delete.
	Writes []string
	// Commands are the shell command lines the call would run.
	Commands []string
	// Shell holds the analysis of each entry of Commands, in the same
	// order. The gate makes them once and hands the same ones to the
	// permission rules; Host.Check makes any that are missing, and never
	// uses one whose Source is not the command line it stands for.
	Shell []*shellguard.Analysis

	// memo holds what the path plugins work out about this call (its
	// write targets) for the other plugins of the same Check; a new Check
	// starts a new one, so nothing outlives the check.
	memo *callMemo
}

// Block is a refusal by one plugin.
type Block struct {
	Plugin string
	Reason string
}

// Host runs the enabled plugins in order.
type Host struct {
	plugins []Plugin
}

// NewHost builds a host over plugins in chain order.
func NewHost(ps ...Plugin) *Host { return &Host{plugins: slices.Clone(ps)} }

// Plugins returns the active plugins in chain order.
func (h *Host) Plugins() []Plugin {
	if h == nil {
		return nil
	}
	return slices.Clone(h.plugins)
}

// Check runs BeforeToolCall of each plugin in order. The first block wins
// and later plugins are not consulted. Every plugin sees the same analyses
// of the call's command lines: c.Shell, completed first if it lacks any.
func (h *Host) Check(ctx context.Context, c Call) *Block {
	if h == nil {
		return nil
	}
	c.Shell = shellguard.AnalyzeLines(c.Commands, c.Shell)
	c.memo = &callMemo{}
	for _, p := range h.plugins {
		if p.BeforeToolCall == nil {
			continue
		}
		if reason := runGuard(ctx, p, c); reason != "" {
			return &Block{Plugin: p.Name, Reason: reason}
		}
	}
	return nil
}

func runGuard(ctx context.Context, p Plugin, c Call) (reason string) {
	defer func() {
		if r := recover(); r != nil {
			reason = fmt.Sprintf("plugin %s failed (%v), so the call is blocked", p.Name, r)
		}
	}()
	reason, err := p.BeforeToolCall(ctx, c)
	if err != nil {
		return fmt.Sprintf("plugin %s failed (%v), so the call is blocked", p.Name, err)
	}
	return reason
}

// AfterTurn runs every AfterTurn; one failing does not stop the rest. The
// failures are returned for the caller to report.
func (h *Host) AfterTurn(ctx context.Context, t tool.TurnSummary) []error {
	if h == nil {
		return nil
	}
	var errs []error
	for _, p := range h.plugins {
		if p.AfterTurn == nil {
			continue
		}
		if err := runAfter(ctx, p, t); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func runAfter(ctx context.Context, p Plugin, t tool.TurnSummary) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plugin %s: after-turn panicked: %v", p.Name, r)
		}
	}()
	if err := p.AfterTurn(ctx, t); err != nil {
		return fmt.Errorf("plugin %s: after-turn: %w", p.Name, err)
	}
	return nil
}

// AutoApproved reports whether some plugin auto-approves tool.
func (h *Host) AutoApproved(tool string) bool {
	if h == nil {
		return false
	}
	for _, p := range h.plugins {
		if slices.Contains(p.AutoApprove, tool) {
			return true
		}
	}
	return false
}

// Appendices returns the prompt appendices of plugins that have one.
func (h *Host) Appendices() []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, p := range h.plugins {
		if p.Appendix != "" {
			out = append(out, p.Appendix)
		}
	}
	return out
}

// ToolManifests returns the tool manifests of the plugins, with the
// source of the plugin each came from.
func (h *Host) ToolManifests() (ms []external.Manifest, sources []string) {
	if h == nil {
		return nil, nil
	}
	for _, p := range h.plugins {
		for _, m := range p.ToolManifests {
			ms = append(ms, m)
			sources = append(sources, p.Source)
		}
	}
	return ms, sources
}

// Tools returns the tools that plugins add.
func (h *Host) Tools() []tool.Tool {
	if h == nil {
		return nil
	}
	var out []tool.Tool
	for _, p := range h.plugins {
		out = append(out, p.Tools...)
	}
	return out
}
