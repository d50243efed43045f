package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/problem"
	"github.com/shiro-neko/shiro/internal/skills"
)

// Problem is the loaders' one report of what did not load, named here
// for the app's many reports of its own.
type Problem = problem.Problem

// extensions are the skills and plugins of a session, with what failed to
// load among them. A value never changes: a reload builds a new one and
// swaps it in at a turn boundary, so whoever holds one (a running turn, a
// /skills command on another goroutine) sees a consistent whole, and the
// problems of an old load are replaced, never piled up.
type extensions struct {
	skills   *skills.Catalogue
	plugins  *plugin.Host
	problems []Problem
	// generation counts the loads before this one: the version of the
	// prompt's skill and plugin parts.
	generation uint64
}

// loadExtensions reads skills and plugins from every source.
func (a *App) loadExtensions() *extensions {
	ext := &extensions{}
	opts := a.opts
	if opts.NoSkills {
		ext.skills, _ = skills.Load(skills.Sources{NoBundled: true})
	} else {
		cat, problems := skills.Load(skills.Sources{
			RegistryDir:      filepath.Join(opts.Paths.Registry(), "skills"),
			UserDir:          opts.Paths.Skills(),
			ProjectDir:       filepath.Join(config.ProjectDir(opts.Cwd), "skills"),
			ClaudeUserDir:    filepath.Join(opts.Paths.ClaudeDir(), "skills"),
			ClaudeProjectDir: filepath.Join(opts.Cwd, ".claude", "skills"),
		})
		ext.problems = append(ext.problems, problems...)
		ext.skills = cat
	}
	// The read tools may read the folders of the skills in use, and only
	// those, even outside the workspace.
	a.Env.SetReadOnlyRoots(ext.skills.Folders())
	if opts.NoPlugins {
		ext.plugins = plugin.NewHost()
		return ext
	}
	// The formatters and git the plugins run are the workspace's to choose
	// (a package.json script, the git on PATH and the config it reads), so
	// they run as the model's commands do: in the sandbox, with the
	// scrubbed environment. That is all of the session they are given.
	deps := plugin.BuiltinDeps{
		StateDir: stateDir(opts.Paths), Bell: opts.BellOut,
		Run: plugin.Contained(a.Env.Launcher, a.Env.CommandEnviron),
	}
	// Names were checked when the config loaded, so none is unknown here.
	enabled, _ := plugin.Resolve(opts.Settings.Plugins, deps)
	manifests, problems := plugin.LoadManifests(
		filepath.Join(opts.Paths.Registry(), "plugins"),
		opts.Paths.Plugins(),
		filepath.Join(config.ProjectDir(opts.Cwd), "plugins"),
	)
	ext.problems = append(ext.problems, problems...)
	ext.plugins = plugin.NewHost(append(enabled, manifests...)...)
	return ext
}

// extGeneration is the version of the extensions in use.
func (a *App) extGeneration() uint64 { return a.ext.Load().generation }

// Problems lists what did not load, current as of the last reload.
func (a *App) Problems() []Problem {
	return append(append(slices.Clone(a.startup), a.ext.Load().problems...), a.commandProblems()...)
}

// RequestReload asks for skills and plugins (registry installs included)
// to be reloaded when the next turn starts, never halfway through one.
func (a *App) RequestReload() { a.reload.Store(true) }

// beforeTurn is the session's turn boundary: a pending reload builds new
// extensions, swaps them in, and hands the session a gate over the new
// plugins.
func (a *App) beforeTurn(ctx context.Context) agent.TurnSetup {
	if !a.reload.Swap(false) {
		return a.mcpTurn(ctx, agent.TurnSetup{})
	}
	before := a.ext.Load()
	next := a.loadExtensions()
	next.generation = before.generation + 1
	a.ext.Store(next)
	notices := []string{fmt.Sprintf("reloaded extensions: %d skills (was %d), %d plugins",
		next.skills.Len(), before.skills.Len(), len(next.plugins.Plugins()))}
	for _, p := range next.problems {
		notices = append(notices, p.String())
	}
	return a.mcpTurn(ctx, agent.TurnSetup{Gate: a.gate(next), Notices: notices})
}

// gate builds the gate over a set of extensions: the same rules, hooks
// and settings every time, only the plugins change.
func (a *App) gate(ext *extensions) *agent.Gate {
	g := &agent.Gate{Plugins: ext.plugins, Rules: a.Loaded.Policy, Yolo: a.opts.Yolo, Cwd: a.Env.Root,
		Approval: a.Loaded.Approval, Box: a.sandboxSwitch, Widen: a.widener()}
	if a.checkpoints != nil {
		g.Irreplaceable = a.checkpoints
	}
	if a.Hooks != nil {
		g.Hooks = hookGate{runner: a.Hooks, cwd: a.Env.Root, notify: a.notice}
	}
	return g
}

// stateDir is where shiro keeps state, for the protect plugin.
func stateDir(p config.Paths) string {
	if abs, err := filepath.Abs(p.State()); err == nil {
		return abs
	}
	return p.State()
}
