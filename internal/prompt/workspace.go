package prompt

import (
	"context"
	"sync"
	"sync/atomic"
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
// and reloads them between turns. Its version moves only when the text
// really changed, so a turn that edits code without creating files or
// touching AGENTS.md or TODO.md leaves the cached prefix alone.
type Workspace struct {
	load    WorkspaceLoaders
	version atomic.Uint64

	mu           sync.Mutex
	overview     string
	instructions string
	policy       string
}

// NewWorkspace loads every part once.
func NewWorkspace(ctx context.Context, load WorkspaceLoaders) *Workspace {
	w := &Workspace{load: load}
	w.overview = call(ctx, load.Overview)
	w.instructions = call0(load.Instructions)
	w.policy = call0(load.Policy)
	return w
}

// Parts are the workspace's parts of the prompt, all three under its one
// version.
func (w *Workspace) Parts() (overview, instructions, policy Part) {
	return Part{w.Overview, w.Version}, Part{w.Instructions, w.Version}, Part{w.Policy, w.Version}
}

// Version moves whenever Refresh finds the overview, the instructions or
// the policy changed.
func (w *Workspace) Version() uint64 { return w.version.Load() }

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
// moves the version when any of them changed — so tracker files created
// mid-session switch the policy on from the next step — and reports
// whether anything did.
func (w *Workspace) Refresh(ctx context.Context, rewalk bool) bool {
	instructions := call0(w.load.Instructions)
	policy := call0(w.load.Policy)
	overview := ""
	if rewalk {
		overview = call(ctx, w.load.Overview)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := false
	if rewalk && overview != w.overview {
		w.overview, changed = overview, true
	}
	if instructions != w.instructions {
		w.instructions, changed = instructions, true
	}
	if policy != w.policy {
		w.policy, changed = policy, true
	}
	// Moved under the lock, after the text changed, so that a prompt
	// built after the move sees the new text.
	if changed {
		w.version.Add(1)
	}
	return changed
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
