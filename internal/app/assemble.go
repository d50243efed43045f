package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/tools/gittools"
	"github.com/shiro-neko/shiro/internal/tools/navtools"
	"github.com/shiro-neko/shiro/internal/tools/webtools"
	"github.com/shiro-neko/shiro/internal/workflow"
)

func (a *App) loadSkills(opts Options) {
	if opts.NoSkills {
		a.Skills, _ = skills.Load(skills.Sources{NoBundled: true})
		return
	}
	cat, problems := skills.Load(skills.Sources{
		RegistryDir: filepath.Join(opts.Paths.Registry(), "skills"),
		UserDir:     opts.Paths.Skills(),
		ProjectDir:  filepath.Join(config.ProjectDir(opts.Cwd), "skills"),
	})
	for _, p := range problems {
		a.Problems = append(a.Problems, "skill "+p.String())
	}
	a.Skills = cat
}

// loadPlugins builds the chain: enabled builtins in registry order, then
// manifest plugins (registry-installed, user, project). Hooks come after, in
// the gate. --no-plugins leaves the chain empty, guard included.
func (a *App) loadPlugins(opts Options) {
	if opts.NoPlugins {
		a.Plugins = plugin.NewHost()
		return
	}
	deps := plugin.BuiltinDeps{StateDir: stateDir(opts.Paths), Bell: opts.BellOut}
	enabled, unknown := plugin.Resolve(opts.Settings.Plugins, deps)
	for _, u := range unknown {
		a.Problems = append(a.Problems, fmt.Sprintf("no such plugin %q", u))
	}
	manifests, problems := plugin.LoadManifests(
		filepath.Join(opts.Paths.Registry(), "plugins"),
		opts.Paths.Plugins(),
		filepath.Join(config.ProjectDir(opts.Cwd), "plugins"),
	)
	for _, p := range problems {
		a.Problems = append(a.Problems, "plugin "+p.Error())
	}
	a.Plugins = plugin.NewHost(append(enabled, manifests...)...)
}

func (a *App) buildRegistry(opts Options) (*tools.Registry, error) {
	list := tools.FileTools(a.Env)
	list = append(list, tools.EditPlusTools(a.Env)...)
	list = append(list, tools.Bash(a.Env, a.background), tools.BashStatus(a.background), tools.BashStop(a.background))
	list = append(list, gittools.Tools(a.Env, commitModel{a: a})...)
	list = append(list, navtools.Tools(a.Env)...)
	list = append(list, webtools.Tools(nil, nil)...)
	list = append(list, a.Notebook.Tool())
	if a.Memory != nil {
		list = append(list, a.Memory.Tools()...)
	}
	if !opts.NoSkills {
		// The live catalogue: a registry install takes effect at the next
		// turn boundary (beforeTurn) without rebuilding the tools.
		list = append(list, skills.Tool(func() *skills.Catalogue { return a.Skills }))
	}
	list = append(list, a.Plugins.Tools()...)
	if opts.Asker != nil {
		list = append(list, askuser.New(opts.Asker))
	}
	if !opts.NoSubagent {
		list = append(list, a.taskTool(opts))
	}
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		return nil, fmt.Errorf("assembling tools: %w", err)
	}
	return reg, nil
}

func (a *App) promptSources(ctx context.Context, opts Options, variant agent.Variant, v *prompt.Versions) prompt.Sources {
	s := opts.Settings
	load := prompt.WorkspaceLoaders{
		Overview: func(ctx context.Context) string {
			return prompt.Overview(ctx, a.Env, prompt.DefaultOverviewBytes)
		},
	}
	if !opts.NoInstructions {
		load.Instructions = func() string { return prompt.LoadInstructions(a.Env.Root) }
	}
	if s.WorkflowEnabled {
		load.Policy = func() string { return workflow.Policy(a.Env.Root, s.DocsDir) }
	}
	a.Workspace = prompt.NewWorkspace(ctx, load, v)
	src := prompt.Sources{
		Root:         a.Env.Root,
		Platform:     platform(),
		Overview:     a.Workspace.Overview,
		Instructions: a.Workspace.Instructions,
		Workflow:     a.Workspace.Policy,
		// Read through a, so that a reloaded catalogue (which bumps
		// Versions.Skills) is the one rendered.
		Skills: func() string { return a.Skills.PromptSection() },
		// The session's live variant, so that switching agents changes
		// the appendix too.
		Variant: func() string {
			if a.Session == nil {
				return variant.Appendix
			}
			return a.Session.Config().Variant.Appendix
		},
		Appendices: func() []string { return a.Plugins.Appendices() },
		Notebook:   a.Notebook.Render,
	}
	if a.Memory != nil {
		src.Memory = a.Memory.BootBlock
	}
	return src
}

// pluginObserver runs plugins' AfterTurn; each failure becomes a notice.
type pluginObserver struct{ host *plugin.Host }

func (p pluginObserver) AfterTurn(ctx context.Context, t agent.TurnSummary) []string {
	var notices []string
	for _, err := range p.host.AfterTurn(ctx, plugin.Turn{Cwd: t.Cwd, ToolsCalled: t.ToolsCalled, FilesWritten: t.FilesWritten}) {
		notices = append(notices, err.Error())
	}
	return notices
}
