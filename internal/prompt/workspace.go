package prompt

import (
	"context"
	"sync"
)

// WorkspaceLoaders read the parts of the stable prompt that come from the
// workspace. A nil loader contributes nothing (--no-instructions, workflow
// off).
type WorkspaceLoaders struct {
	Overview     func(ctx context.Context) string
	Instructions func() string
	Policy       func() string
}

// Workspace keeps the parts of the stable prompt read from the workspace
// — the overview, the instruction and tracker files, the workflow policy —
// and reloads them between turns. A counter is bumped only when the text
// really changed, so a turn that edits code without creating files or
// touching AGENTS.md or TODO.md leaves the cached prefix alone.
type Workspace struct {
	load WorkspaceLoaders
	v    *Versions

	mu           sync.Mutex
	overview     string
	instructions string
	policy       string
}

// NewWorkspace loads every part once.
func NewWorkspace(ctx context.Context, load WorkspaceLoaders, v *Versions) *Workspace {
	w := &Workspace{load: load, v: v}
	w.overview = call(ctx, load.Overview)
	w.instructions = call0(load.Instructions)
	w.policy = call0(load.Policy)
	return w
}

// Overview is the workspace overview as last loaded.
func (w *Workspace) Overview() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.overview
}

// Instructions are the instruction and tracker files as last loaded.
func (w *Workspace) Instructions() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.instructions
}

// Policy is the workflow policy as last evaluated.
func (w *Workspace) Policy() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.policy
}

// Refresh re-reads the instruction files and re-evaluates the workflow
// policy, and re-walks the overview when rewalk is set (the turn wrote or
// may have written files; a walk costs milliseconds on a large tree). It
// bumps Workspace when the overview or the instructions changed and
// Workflow when the policy did — so tracker files created mid-session
// switch the policy on from the next step — and reports whether anything
// changed.
func (w *Workspace) Refresh(ctx context.Context, rewalk bool) bool {
	instructions := call0(w.load.Instructions)
	policy := call0(w.load.Policy)
	overview := ""
	if rewalk {
		overview = call(ctx, w.load.Overview)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	workspace, workflow := false, false
	if rewalk && overview != w.overview {
		w.overview, workspace = overview, true
	}
	if instructions != w.instructions {
		w.instructions, workspace = instructions, true
	}
	if policy != w.policy {
		w.policy, workflow = policy, true
	}
	// Bumped under the lock, after the text changed, so that a prompt
	// built after the bump sees the new text.
	if workspace {
		w.v.Workspace.Add(1)
	}
	if workflow {
		w.v.Workflow.Add(1)
	}
	return workspace || workflow
}

func call(ctx context.Context, f func(context.Context) string) string {
	if f == nil {
		return ""
	}
	return f(ctx)
}

func call0(f func() string) string {
	if f == nil {
		return ""
	}
	return f()
}
