package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
)

// WorkflowState is what /workflow shows: whether the project workflow is
// on, whether the prompt carries its policy and why, and how many nudges
// the session has sent. The app fills it in from the config, the git root
// and the session's nudger.
type WorkflowState struct {
	// Enabled is config workflow.enabled: the policy and the nudges.
	Enabled bool
	// GitRoot is the repository root the workflow is based at; empty
	// outside a git repository, where the workflow is silent.
	GitRoot string
	// Trackers are what the git root has of TODO.md, ROADMAP.md and the
	// docs directory (with a trailing slash), in that order. The policy is
	// in the prompt when there is any.
	Trackers []string
	// DocsDir is config workflow.docsDir.
	DocsDir string
	// Nudges is how many reminders this session has sent, of MaxNudges.
	Nudges, MaxNudges int
}

// runWorkflow shows the workflow state: the policy and the nudge count as
// n/MaxNudges.
func runWorkflow(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	w := h.Workflow()
	if !w.Enabled {
		return text("workflow: off (config workflow.enabled is false): no policy in the prompt, no nudges"), nil
	}
	docs := strings.TrimSuffix(w.DocsDir, "/") + "/"
	var policy string
	switch {
	case w.GitRoot == "":
		policy = "policy: not in the prompt: the workspace is not in a git repository"
	case len(w.Trackers) == 0:
		policy = fmt.Sprintf("policy: not in the prompt: %s has no TODO.md, ROADMAP.md or %s (/init scaffold or shiro --init-scaffold writes them)", w.GitRoot, docs)
	default:
		policy = fmt.Sprintf("policy: in the prompt: %s tracks its progress in %s", w.GitRoot, strings.Join(w.Trackers, ", "))
	}
	lines := []string{
		"workflow: on",
		policy,
		fmt.Sprintf("nudges: %d/%d sent this session", w.Nudges, w.MaxNudges),
	}
	return text(strings.Join(lines, "\n")), nil
}

// runLSP shows the session's language servers (internal/lsp): which run,
// for which files, their state, restarts and failures.
func runLSP(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	return text(h.LSP()), nil
}
