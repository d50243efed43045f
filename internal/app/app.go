package app

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/bash"
	"github.com/shiro-neko/shiro/internal/workflow"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Options say how to assemble a session.
type Options struct {
	Loaded
	Yolo, NoPlugins, NoSkills, NoMemory, NoInstructions, NoSubagent bool
	// Attended says someone answers approvals and questions (the terminal
	// UI, an editor, a stream-json client). Without it every ask is denied
	// by policy and tools that need a person are not offered.
	Attended bool
	// Record receives a cassette of every model response (--record).
	Record io.Writer
	// Provider replaces the configured one (the demo, tests).
	Provider llm.Provider
	// BellOut is where the bell plugin rings (stderr).
	BellOut io.Writer
}

// App is a running session and everything it owns.
type App struct {
	Session  *agent.Session
	Env      *workspace.Env
	Tools    *tool.Registry
	Hooks    *hooks.Runner // nil when hooks are off
	Notebook *notebook.Notebook
	// Memory is the project memory; nil under --no-memory or when its
	// file could not be read (a problem says why).
	Memory *memory.Store
	Prompt *prompt.Builder
	// Workspace holds the prompt's overview, instruction files and
	// workflow policy, refreshed after every turn.
	Workspace *prompt.Workspace
	Loaded    Loaded

	ext        atomic.Pointer[extensions]
	reload     atomic.Bool
	startup    []Problem
	background *bash.Background
	opts       Options
	provider   llm.Provider
}

// Open assembles a session in the working directory of opts and starts it:
// read a.Session.Events() until it closes.
func Open(ctx context.Context, opts Options) (*App, error) {
	s := opts.Settings
	a := &App{Loaded: opts.Loaded, opts: opts}
	env, err := workspace.New(opts.Cwd)
	if err != nil {
		return nil, err
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		env.Ripgrep = rg
	}
	a.Env = env
	a.reapBackground()

	versions := &prompt.Versions{}
	nb, err := notebook.Open(opts.Paths.Notebook(env.Root), a.tasksChanged(versions))
	if err != nil {
		return nil, err
	}
	a.Notebook = nb
	a.openMemory(opts, versions)
	a.ext.Store(a.loadExtensions())
	if err := a.buildTools(opts); err != nil {
		return nil, err
	}

	sessionID := uuid.Must(uuid.NewV7()).String()
	observers := []agent.TurnObserver{pluginObserver{app: a}}
	if !opts.NoPlugins && s.HooksEnabled {
		a.openHooks(opts, sessionID)
		if a.Hooks != nil {
			observers = append(observers, hookObserver{runner: a.Hooks})
		}
	}
	variant, err := startVariant(s)
	if err != nil {
		return nil, err
	}
	provider := opts.Provider
	if provider == nil {
		if provider, err = BuildProvider(s, opts.Record); err != nil {
			return nil, err
		}
	}
	a.provider = provider
	a.Prompt = prompt.NewBuilder(a.promptSources(ctx, opts, versions), versions)
	observers = append(observers, workspaceObserver{ws: a.Workspace})
	if s.WorkflowEnabled {
		observers = append(observers, workflow.NewNudger(versions.Notebook.Load))
	}
	a.Session, err = agent.Start(ctx, agent.Config{
		Provider: provider, Model: s.Model, ProviderName: s.Preset.ID, SessionID: sessionID, Cwd: env.Root,
		Tools: a.Tools, Gate: a.gate(a.ext.Load()), Prompter: a.Prompt, Variant: variant,
		Filter: tool.Filter{Sets: opts.Sets, NoDelegation: opts.NoSubagent}, Attended: opts.Attended,
		CacheSystemPrefix: s.CacheSystemPrefix, Observers: observers, BeforeTurn: a.beforeTurn,
		Commands: commands.New(host{a}),
	})
	if err != nil {
		return nil, err
	}
	a.announce()
	return a, nil
}

// announce tells the front end, once, what it should know before the first
// turn: load problems, a missing API key, hooks waiting for approval.
func (a *App) announce() {
	for _, p := range a.Problems() {
		a.Session.Publish(protocol.NoticeEvent{Text: p.String()})
	}
	if s := a.Loaded.Settings; s.NeedsKey() {
		a.Session.Publish(protocol.NoticeEvent{Text: missingKey(s.Preset.ID, s.KeyVar, a.Loaded.Paths.ConfigFile())})
	}
	if a.Hooks != nil && a.opts.Attended {
		if review := commands.HookReview(a.Hooks); len(review.Choices) > 0 {
			a.Session.Publish(protocol.CommandResultEvent{Command: "hooks", Output: review.Output, Choices: review.Choices})
		}
	}
}

// Close ends the session (a running turn is interrupted; events nobody
// read are drained) and stops what it started: background commands.
func (a *App) Close() {
	if s := a.Session; s != nil {
		_ = s.Submit(protocol.Interrupt{})
		_ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	}
	if a.background == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.background.StopAll(ctx)
}

func startVariant(s config.Settings) (agent.Variant, error) {
	v := agent.DefaultVariant()
	if s.Agent != "" {
		var err error
		if v, err = agent.VariantNamed(s.Agent); err != nil {
			return v, err
		}
	}
	if s.Thinking != "" {
		v.Thinking = llm.Thinking(s.Thinking)
	}
	return v, nil
}

// missingKey is the one line that says which key is missing and where to
// put it.
func missingKey(preset, keyVar, configFile string) string {
	return fmt.Sprintf("no API key for %s: set %s (or SHIRO_API_KEY, or apiKey in %s)", preset, keyVar, configFile)
}

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }
