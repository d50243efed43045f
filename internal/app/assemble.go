package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/tools"
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
	list = append(list, tools.Bash(a.Env, a.background), tools.BashStatus(a.background), tools.BashStop(a.background))
	list = append(list, a.Notebook.Tool())
	if a.Skills.Len() > 0 {
		cat := a.Skills
		list = append(list, skills.Tool(func() *skills.Catalogue { return cat }))
	}
	list = append(list, a.Plugins.Tools()...)
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		return nil, fmt.Errorf("assembling tools: %w", err)
	}
	return reg, nil
}

func (a *App) promptSources(opts Options, variant agent.Variant) prompt.Sources {
	s := opts.Settings
	src := prompt.Sources{
		Root:       a.Env.Root,
		Platform:   platform(),
		Skills:     a.Skills.PromptSection,
		Variant:    func() string { return variant.Appendix },
		Appendices: a.Plugins.Appendices,
		Notebook:   a.Notebook.Render,
	}
	if !opts.NoInstructions {
		instr := prompt.LoadInstructions(a.Env.Root)
		src.Instructions = func() string { return instr }
	}
	if s.WorkflowEnabled {
		policy := workflow.Policy(a.Env.Root, s.DocsDir)
		src.Workflow = func() string { return policy }
	}
	overview := prompt.Overview(context.Background(), a.Env, prompt.DefaultOverviewBytes)
	src.Overview = func() string { return overview }
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
