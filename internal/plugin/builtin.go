package plugin

import (
	"io"
	"os"
	"slices"
	"time"
)

// BuiltinDeps is what the builtin plugins need from the outside world.
// Every field but Run has a working default; without Run, the plugins that
// run programs refuse to.
type BuiltinDeps struct {
	// Now is the clock of current_time; nil means time.Now.
	Now func() time.Time
	// Bell is where bell writes BEL; nil means standard error.
	Bell io.Writer
	// StateDir is the agent's own state directory (~/.shiro-neko), which
	// protect refuses to write. Empty means only the .shiro-neko name is
	// recognised.
	StateDir string
	// Run runs format's formatters and no-main-commit's git query with
	// fixed arguments. Both run what the workspace chose, so a session
	// passes Contained with its sandbox and command environment; nil
	// refuses to run anything.
	Run Runner
	// Home is the user's home directory, where secrets and protect look
	// for ~/.ssh and the shell's startup files and resolve ~; empty means
	// os.UserHomeDir.
	Home string
	// TempDir is where mktemp makes files; empty means os.TempDir.
	TempDir string
	// Getenv reads the environment commands run with, to resolve $NAME in
	// a path; nil means os.Getenv.
	Getenv func(string) string
}

// builtin is one entry of the registry: its name and how to build it.
type builtin struct {
	name  string
	build func(d BuiltinDeps) Plugin
}

// registry lists the builtins in chain order: the guard first, then the
// other refusals, then what only runs after a turn or only advises.
func registry() []builtin {
	return []builtin{
		{"guard", func(BuiltinDeps) Plugin { return Guard() }},
		{"secrets", secretsPlugin},
		{"protect", protectPlugin},
		{"time", func(d BuiltinDeps) Plugin { return Time(d.Now) }},
		{"no-force-push", func(BuiltinDeps) Plugin { return NoForcePush() }},
		{"no-net-pipe", func(BuiltinDeps) Plugin { return NoNetPipe() }},
		{"no-root", func(BuiltinDeps) Plugin { return NoRoot() }},
		{"no-env-write", func(BuiltinDeps) Plugin { return NoEnvWrite() }},
		{"bell", func(d BuiltinDeps) Plugin { return Bell(d.Bell) }},
		{"format", func(d BuiltinDeps) Plugin { return Format(d.Run) }},
		{"no-main-commit", func(d BuiltinDeps) Plugin { return NoMainCommit(d.Run) }},
		{"no-git-config", func(BuiltinDeps) Plugin { return NoGitConfig() }},
		{"confirm-delete", func(BuiltinDeps) Plugin { return ConfirmDelete() }},
		{"conventional-commit", func(BuiltinDeps) Plugin { return ConventionalCommit() }},
		{"tests-first", func(BuiltinDeps) Plugin { return TestsFirst() }},
		{"small-diffs", func(BuiltinDeps) Plugin { return SmallDiffs() }},
	}
}

func (d BuiltinDeps) withDefaults() BuiltinDeps {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Bell == nil {
		d.Bell = os.Stderr
	}
	if d.Run == nil {
		d.Run = refuseRunner
	}
	if d.Home == "" {
		d.Home, _ = os.UserHomeDir()
	}
	if d.TempDir == "" {
		d.TempDir = os.TempDir()
	}
	if d.Getenv == nil {
		d.Getenv = os.Getenv
	}
	return d
}

// BuiltinNames lists every builtin plugin in registry order.
func BuiltinNames() []string {
	reg := registry()
	names := make([]string, len(reg))
	for i, b := range reg {
		names[i] = b.name
	}
	return names
}

// Resolve builds the builtins that names enable, in registry order rather
// than the order of names, so the guard always runs first. A name given
// twice is enabled once; names that are not builtins come back in unknown,
// in the order given.
func Resolve(names []string, deps BuiltinDeps) (enabled []Plugin, unknown []string) {
	deps = deps.withDefaults()
	wanted := make(map[string]bool, len(names))
	known := make(map[string]bool)
	for _, b := range registry() {
		known[b.name] = true
	}
	for _, n := range names {
		if !known[n] {
			if !slices.Contains(unknown, n) {
				unknown = append(unknown, n)
			}
			continue
		}
		wanted[n] = true
	}
	for _, b := range registry() {
		if wanted[b.name] {
			enabled = append(enabled, b.build(deps))
		}
	}
	return enabled, unknown
}
