package tools

import (
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

// isSecretEnv reports whether a variable holds a credential the model must
// not read with `env`. Every *_API_KEY goes, which covers SHIRO_API_KEY,
// ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, GROQ_API_KEY,
// DEEPSEEK_API_KEY and XAI_API_KEY; ANTHROPIC_AUTH_TOKEN is the Anthropic
// SDK's other credential.
func isSecretEnv(name string) bool {
	upper := strings.ToUpper(name)
	return upper == "API_KEY" || strings.HasSuffix(upper, "_API_KEY") || upper == "ANTHROPIC_AUTH_TOKEN"
}

// ScrubEnv returns environ ("NAME=value" entries) without the variables
// that hold API keys. It is a guard against casual disclosure, not a
// sandbox: a command running as the same user can still read the parent's
// /proc/<pid>/environ.
func ScrubEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !isSecretEnv(name) {
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
