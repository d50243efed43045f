package app

import (
	"context"
	"fmt"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// sandboxWidener lets the session's sandbox allow what it refused a
// command: once (a wider sandbox for the call's retry alone), for the
// session (the switch launches every later command in it), or for the
// project (also kept in the user's sandbox grants, read by every later
// session in this workspace; see config.SandboxGrant for why there).
type sandboxWidener struct {
	sw     *sandbox.Switch
	grants string // the grants file
	root   string // the workspace root, resolved: the project's key
	config string // the user's config file, for hints
}

// widener is the session's widener; nil when commands are not confined
// (nothing is refused that widening would help).
func (a *App) widener() agent.Widener {
	if a.sandboxSwitch == nil || !a.Sandbox.Confines() {
		return nil
	}
	return &sandboxWidener{sw: a.sandboxSwitch, grants: a.Loaded.Paths.SandboxGrants(),
		root: a.Sandbox.Workspace(), config: a.Loaded.Paths.ConfigFile()}
}

func (w *sandboxWidener) Allow(ctx context.Context, r protocol.SandboxRefusal, scope agent.Scope) (context.Context, error) {
	switch scope {
	case agent.ScopeOnce:
		return w.sw.Once(ctx, r.Path, r.Network)
	case agent.ScopeProject:
		g := config.SandboxGrant{Network: r.Network}
		if !r.Network {
			g.Writable = []string{r.Path}
		}
		if err := config.AddProjectSandboxGrant(w.grants, w.root, g); err != nil {
			return ctx, fmt.Errorf("keeping the grant for the project: %w", err)
		}
	}
	return ctx, w.sw.Widen(r.Path, r.Network)
}

func (w *sandboxWidener) HowToAllow(r protocol.SandboxRefusal) string {
	if r.Network {
		return fmt.Sprintf("set sandbox.network to true in %s, or pass --sandbox off", w.config)
	}
	shown := r.Shown
	if shown == "" {
		shown = r.Path
	}
	return fmt.Sprintf("add %s to sandbox.writable in %s, or pass --sandbox off", shown, w.config)
}
