package app

import (
	"context"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/workflow"
)

func (a *App) promptSources(ctx context.Context, opts Options) prompt.Sources {
	s := opts.Settings
	load := prompt.WorkspaceLoaders{
		Overview: func(ctx context.Context) string {
			return prompt.Overview(ctx, a.Env, prompt.DefaultOverviewBytes)
		},
	}
	if !opts.NoInstructions {
		load.Instructions = func() string {
			text, _ := prompt.ReadInstructions(a.Env.Root, a.instructionOptions())
			return text
		}
	}
	if s.WorkflowEnabled {
		load.Policy = func() string { return workflow.Policy(a.Env.Root, s.DocsDir) }
	}
	a.Workspace = prompt.NewWorkspace(ctx, load)
	src := prompt.Sources{Root: a.Env.Root, Platform: platform(),
		// Read through the current extensions, so that a reload (a new
		// generation) is what gets rendered.
		Skills:   prompt.Part{Text: func() string { return a.ext.Load().skills.PromptSection() }, Version: a.extGeneration},
		Plugins:  prompt.Part{Text: func() string { return prompt.Sections(a.ext.Load().plugins.Appendices()) }, Version: a.extGeneration},
		Notebook: prompt.Part{Text: a.Notebook.Render, Version: a.Notebook.Version},
	}
	src.Overview, src.Instructions, src.Workflow = a.Workspace.Parts()
	if a.Memory != nil {
		src.Memory = prompt.Part{Text: a.Memory.BootBlock, Version: a.Memory.Version}
	}
	return src
}

// instructionOptions is how the instruction files are read, for the
// prompt and for /context alike, so that /context lists what the model gets.
func (a *App) instructionOptions() prompt.InstructionOptions {
	return prompt.InstructionOptions{Home: a.Loaded.Paths.Home}
}

// openMemory opens the project memory unless --no-memory. A file that
// cannot be read leaves memory off for the session, with a problem, rather
// than risk overwriting what earlier sessions learned.
func (a *App) openMemory(opts Options) {
	if opts.NoMemory {
		return
	}
	store, err := memory.Open(opts.Paths.Memory(a.Env.Root), memory.Options{})
	if err != nil {
		a.startup = append(a.startup, Problem{Kind: "memory", Err: err.Error() + " (memory is off for this session)"})
		return
	}
	a.Memory = store
}

// pluginObserver runs the current plugins' AfterTurn; each failure becomes
// a notice.
type pluginObserver struct {
	agent.NoHooks
	app *App
}

func (p pluginObserver) Ended(ctx context.Context, t agent.TurnEnd) agent.Ending {
	var notices []string
	host := p.app.ext.Load().plugins
	for _, err := range host.AfterTurn(ctx, t.TurnSummary) {
		notices = append(notices, err.Error())
	}
	return agent.Ending{Notices: notices}
}

// workspaceObserver refreshes the prompt's workspace parts after each
// turn: instruction files and the workflow policy always (a few stats and
// reads), the overview only when the turn wrote files or ran anything
// that may have, since a walk costs milliseconds.
type workspaceObserver struct {
	agent.NoHooks
	ws *prompt.Workspace
}

func (o workspaceObserver) Ended(ctx context.Context, t agent.TurnEnd) agent.Ending {
	o.ws.Refresh(ctx, len(t.FilesWritten) > 0 || t.RanCommands)
	return agent.Ending{}
}
