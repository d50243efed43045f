package app

import (
	"context"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/lsp"
)

// openLSP decides, once at session start, which language servers the
// session has: the tools offered depend on it, and must stay the same
// all session for the prompt cache to hit. Nothing starts yet.
func (a *App) openLSP() {
	specs, err := lsp.Specs(a.Loaded.Settings.LSP)
	if err != nil {
		a.startup = append(a.startup, Problem{Kind: "config", Where: a.Loaded.Paths.ConfigFile(), Err: err.Error()})
		return
	}
	a.LSP = lsp.New(lsp.Options{
		Root:     a.Env.Root,
		Servers:  lsp.Detect(a.Env.Root, specs, lsp.LookPath),
		Launcher: a.Env.Launcher,
		Environ:  a.Env.CommandEnviron,
	})
}

// lspCheck sends the model back to the errors the turn's changed files
// gained, once, before the turn ends.
type lspCheck struct {
	agent.NoHooks
	m *lsp.Manager
}

func (c lspCheck) Ended(ctx context.Context, e agent.TurnEnd) agent.Ending {
	if !e.MayContinue || len(e.FilesWritten) == 0 {
		return agent.Ending{}
	}
	return agent.Ending{Continue: c.m.EndCheck(ctx)}
}

// DescribeLSP is `shiro lsp`: the language servers a session in the
// loaded workspace would run, without starting them.
func DescribeLSP(l Loaded, root string) (string, error) {
	specs, err := lsp.Specs(l.Settings.LSP)
	if err != nil {
		return "", err
	}
	return lsp.Plan(root, specs, lsp.LookPath), nil
}
