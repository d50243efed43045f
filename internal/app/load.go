// Package app is the composition root: it turns resolved settings into a
// running session — provider, tools, plugins, hooks, permission rules,
// skills, prompt and state — and owns their lifetimes.
package app

import (
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/config"
)

// Loaded is the configuration of a run before anything is started.
type Loaded struct {
	Settings config.Settings
	Paths    config.Paths
	// Cwd is the workspace root (the working directory).
	Cwd      string
	warnings []string
}

// Warnings returns what loading found worth telling the person.
func (l Loaded) Warnings() []string { return append(l.warnings, l.Settings.Warnings...) }

// Load reads the user's config, the project's `.shiro/config.json`, the
// environment and flags.
func Load(getenv func(string) string, cwd string, flags config.Flags) (Loaded, error) {
	paths, err := config.PathsFromEnv(getenv)
	if err != nil {
		return Loaded{}, err
	}
	user, warns, err := config.ReadFile(paths.ConfigFile())
	if err != nil {
		return Loaded{}, err
	}
	project, pwarns, err := config.ReadFile(filepath.Join(config.ProjectDir(cwd), "config.json"))
	if err != nil {
		return Loaded{}, err
	}
	s, err := config.Resolve(user, project, getenv, flags)
	if err != nil {
		return Loaded{}, err
	}
	return Loaded{Settings: s, Paths: paths, Cwd: cwd, warnings: append(warns, pwarns...)}, nil
}
