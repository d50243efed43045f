package config

import (
	"fmt"
	"strings"
)

// EnvConfig is the `env` object: what the programs run for the model
// (commands, hooks, MCP servers) get of shiro's environment.
type EnvConfig struct {
	// Passthrough names variables handed on although they look like
	// credentials or server addresses (NPM_TOKEN for `npm publish`, say).
	// Only the user's own config may set it: a project could otherwise
	// ask for the person's tokens.
	Passthrough []string `json:"passthrough,omitempty"`
}

// check refuses names no variable can have, so a typo is not silently a
// pass-through of nothing.
func (e EnvConfig) check(file string) error {
	for i, name := range e.Passthrough {
		if name == "" || strings.ContainsAny(name, "= \t\n\x00") {
			return fmt.Errorf("%s: field \"env.passthrough[%d]\": %q is not a variable name; write names such as \"NPM_TOKEN\"", file, i, name)
		}
	}
	return nil
}

// applyEnv takes the user's env table; a project's is ignored with a
// warning.
func (s *Settings) applyEnv(user, project File) {
	if user.Env != nil {
		s.EnvPassthrough = append([]string(nil), user.Env.Passthrough...)
	}
	if project.Env != nil {
		s.Warnings = append(s.Warnings, "project config: env.passthrough can only be set in your own config (~/.shiro-neko/config.json); ignored")
	}
}
