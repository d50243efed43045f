package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
)

// openHooks loads the hook folders and their approvals.
func (a *App) openHooks(opts Options, sessionID string) {
	set, problems := hooks.Load(filepath.Join(config.ProjectDir(a.Env.Root), "hooks"), opts.Paths.Hooks())
	a.startup = append(a.startup, problems...)
	trust, err := hooks.OpenTrust(opts.Paths.HookTrust())
	if err != nil {
		a.startup = append(a.startup, Problem{Kind: "hook", Where: opts.Paths.HookTrust(), Err: err.Error() + " (every hook blocks until this is fixed)"})
	} else if names, err := trust.MigrateOriginal(set); err != nil {
		a.startup = append(a.startup, Problem{Kind: "hook", Where: opts.Paths.HookTrust(), Err: err.Error()})
	} else if len(names) > 0 {
		// Not a failure, but trust that changed hands: said once, where
		// start-up problems are said.
		a.startup = append(a.startup, Problem{Kind: "hook", Where: opts.Paths.HookTrust() + ".original",
			Err: fmt.Sprintf("the TypeScript original's approval carried over to %s (review with shiro hooks list)", strings.Join(names, ", "))})
	}
	a.Hooks = hooks.NewRunner(set, trust, hooks.Options{
		DefaultTimeout: opts.Settings.HookTimeout, CacheDir: opts.Paths.HookCache(),
		SessionID: sessionID, ProjectDir: a.Env.Root, Validate: a.checkRewrite,
		Launcher: a.Env.Launcher, Passthrough: opts.Settings.EnvPassthrough,
	})
}

// checkRewrite checks a hook's rewritten input the way the model's input is
// checked: the tool decodes it strictly against its own schema.
func (a *App) checkRewrite(name string, input json.RawMessage) error {
	t, ok := a.currentTools().Get(name)
	if !ok {
		return fmt.Errorf("unknown tool %q", name)
	}
	_, err := t.Prepare(input)
	return err
}

// hookGate adapts the hooks runner to the gate.
type hookGate struct {
	runner *hooks.Runner
	cwd    string
}

func (h hookGate) PreTool(ctx context.Context, tool, callID string, input json.RawMessage) agent.HookVerdict {
	r := h.runner.PreTool(ctx, tool, callID, h.cwd, input)
	return agent.HookVerdict{Blocked: r.Blocked, Hook: r.Hook, Reason: r.Reason, Input: r.Input, Rewritten: r.Rewritten}
}

// hookObserver runs after_turn hooks; each failure becomes a notice.
type hookObserver struct {
	agent.NoHooks
	runner *hooks.Runner
}

func (h hookObserver) Ended(ctx context.Context, t agent.TurnEnd) agent.Ending {
	var notices []string
	for _, err := range h.runner.AfterTurn(ctx, t.TurnSummary) {
		notices = append(notices, "after_turn hook: "+err.Error())
	}
	return agent.Ending{Notices: notices}
}
