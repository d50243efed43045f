package workspace

import (
	"github.com/shiro-neko/shiro/internal/secrets"
	"os"
	"strings"
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
// that hold API keys. It is a guard against casual disclosure, not a
// sandbox: a command running as the same user can still read the parent's
// /proc/<pid>/environ.
func ScrubEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !secrets.IsEnvVar(name) {
			out = append(out, kv)
		}
	}
	return out
}

// CommandEnv is the environment a command runs with: base scrubbed of keys,
// with the non-interactive settings (GIT_EDITOR=false, EDITOR=false,
// VISUAL=false, PAGER=cat, GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0) replacing
// whatever base had for them.
func CommandEnv(base []string) []string {
	settings := nonInteractive()
	forced := make(map[string]bool, len(settings))
	for _, kv := range settings {
		name, _, _ := strings.Cut(kv, "=")
		forced[name] = true
	}
	out := make([]string, 0, len(base)+len(settings))
	for _, kv := range ScrubEnv(base) {
		name, _, _ := strings.Cut(kv, "=")
		if !forced[name] {
			out = append(out, kv)
		}
	}
	return append(out, settings...)
}

// CommandEnviron is the environment every command run in e starts from:
// ShellEnv (or the process's own when it is nil) through CommandEnv.
func (e *Env) CommandEnviron() []string {
	if e.ShellEnv != nil {
		return CommandEnv(e.ShellEnv)
	}
	return CommandEnv(os.Environ())
}
