package app

import (
	"context"

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

// lspBeforeEnd is the agent's BeforeEnd: the errors the turn's changed
// files gained, told to the model once before the turn ends.
func (a *App) lspBeforeEnd(ctx context.Context) string {
	return a.LSP.EndCheck(ctx)
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
