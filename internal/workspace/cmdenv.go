package workspace

import (
	"os"
	"strings"

	"github.com/shiro-neko/shiro/internal/secrets"
)

// nonInteractive is forced on every command: with stdin empty, an editor,
// a pager or a credential prompt would only hang until the timeout.
func nonInteractive() []string {
	return []string{
		"GIT_EDITOR=false",
		"EDITOR=false",
		"VISUAL=false", // read before EDITOR by git, crontab and most others
		"PAGER=cat",
		"GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0",
	}
}

// ScrubEnv returns environ ("NAME=value" entries) without the variables
// package secrets withholds from what the model runs (credentials by name
// or value, addresses of servers outside the sandbox), except the names in
// passthrough, which the person chose to hand on.
func ScrubEnv(environ, passthrough []string) []string {
	return secrets.ScrubEnviron(environ, passthrough)
}

// CommandEnv is the environment a command runs with: base scrubbed (with
// no passthrough), with the non-interactive settings (GIT_EDITOR=false,
// EDITOR=false, VISUAL=false, PAGER=cat, GIT_PAGER=cat,
// GIT_TERMINAL_PROMPT=0) replacing whatever base had for them.
func CommandEnv(base []string) []string { return commandEnv(base, nil) }

func commandEnv(base, passthrough []string) []string {
	settings := nonInteractive()
	forced := make(map[string]bool, len(settings))
	for _, kv := range settings {
		name, _, _ := strings.Cut(kv, "=")
		forced[name] = true
	}
	out := make([]string, 0, len(base)+len(settings))
	for _, kv := range ScrubEnv(base, passthrough) {
		name, _, _ := strings.Cut(kv, "=")
		if !forced[name] {
			out = append(out, kv)
		}
	}
	return append(out, settings...)
}

// CommandEnviron is the environment every command run in e starts from:
// ShellEnv (or the process's own when it is nil) through CommandEnv, with
// e.EnvPassthrough handed on.
func (e *Env) CommandEnviron() []string {
	return commandEnv(e.ShellEnviron(), e.EnvPassthrough)
}

// ShellEnviron is the environment commands are made from, before
// CommandEnv: ShellEnv, or the process's own when it is nil.
func (e *Env) ShellEnviron() []string {
	if e.ShellEnv == nil {
		return os.Environ()
	}
	return e.ShellEnv
}
