package app

import (
	"context"
	"errors"
	"github.com/shiro-neko/shiro/internal/lsp"

	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/registry"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/bash"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// host is what the slash commands act on: the app, seen through
// commands.Host.
type host struct{ a *App }

func (h host) Tools() *tool.Registry { return h.a.currentTools() }
func (h host) ProviderLabel() string { return h.a.settings().Preset.Label }

func (h host) ListModels(ctx context.Context) ([]string, string, error) {
	return ListModels(ctx, h.a.settings())
}

func (h host) CacheLines() []string {
	return prompt.NewCacheReport(h.a.owner.Usage(), h.a.Prompt.Stats()).Lines()
}

func (h host) Tasks() []protocol.Task { return h.a.Notebook.Tasks() }

func (h host) DescribeSkills() string  { return DescribeSkills(h.a) }
func (h host) DescribePlugins() string { return DescribePlugins(h.a) }
func (h host) Grants() []string        { return h.a.Loaded.Policy.Grants() }
func (h host) Hooks() *hooks.Runner    { return h.a.Hooks }
func (h host) Reload()                 { h.a.RequestReload() }

func (h host) Registry() *registry.Client {
	return registry.New(registry.OptionsFrom(h.a.Loaded.Settings, h.a.Loaded.Paths))
}

func (h host) Jobs() commands.Jobs {
	if h.a.background == nil {
		return nil
	}
	return jobs{bg: h.a.background}
}

func (h host) NeedsScaffold() bool { return workflow.NeedsScaffold(h.a.Env.Root) }

func (h host) Scaffold() (written, kept []string, err error) {
	res, err := workflow.Scaffold(h.a.Env.Root)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range res.Written {
		written = append(written, h.a.Env.Rel(p))
	}
	for _, p := range res.Kept {
		kept = append(kept, h.a.Env.Rel(p))
	}
	return written, kept, nil
}

func (h host) InitPrompt(scaffolded bool) string { return workflow.InitPrompt(scaffolded) }

func (h host) Workflow() commands.WorkflowState { return h.a.workflowState() }

func (h host) LSP() string { return lsp.Describe(h.a.LSP.Status()) }

// jobs adapts the background manager to the commands.
type jobs struct{ bg *bash.Background }

func (j jobs) List() []commands.Job {
	list := j.bg.List()
	out := make([]commands.Job, len(list))
	for i, job := range list {
		out[i] = asJob(job)
	}
	return out
}

func (j jobs) Stop(ctx context.Context, handle int) (commands.Job, error) {
	job, err := j.bg.Stop(ctx, handle)
	if errors.Is(err, bash.ErrNoSuchHandle) {
		return commands.Job{}, commands.ErrNoSuchJob
	}
	return asJob(job), err
}

func asJob(j bash.Job) commands.Job {
	return commands.Job{Handle: j.Handle, Name: j.Name, Command: j.Command, Status: j.Status(), Running: j.Running}
}
