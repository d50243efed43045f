package app

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/uuid"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// Options say how to assemble a session.
type Options struct {
	Loaded
	Yolo, NoPlugins, NoSkills, NoMemory, NoInstructions, NoSubagent bool
	// Headless withholds the tools that need a person (ask, worker tasks).
	Headless bool
	// Approver answers approval prompts; the TUI supplies one, headless
	// mode denies unless --yolo.
	Approver agent.Approver
	// Asker shows the ask tool's questions; the TUI supplies one. Nil (and
	// headless mode) leaves the ask tool out.
	Asker askuser.Asker
	// Record receives a cassette of every model response (--record).
	Record io.Writer
	// Provider replaces the configured one (the demo, tests).
	Provider llm.Provider
	// BackgroundOutput receives output of background commands ("bg<h>").
	BackgroundOutput func(id, chunk string)
	// BellOut is where the bell plugin rings (stderr).
	BellOut io.Writer
}

// App is a running session and everything it owns.
type App struct {
	Session  *agent.Session
	Gate     *agent.Gate
	Tools    *tools.Registry
	Env      *tools.Env
	Plugins  *plugin.Host
	Hooks    *hooks.Runner // nil when hooks are off
	Skills   *skills.Catalogue
	Notebook *notebook.Notebook
	// Memory is the project memory; nil under --no-memory or when its
	// file could not be read (a Problem says why).
	Memory *memory.Store
	Prompt *prompt.Builder
	// Workspace holds the prompt's overview, instruction files and
	// workflow policy, refreshed after every turn.
	Workspace *prompt.Workspace
	// Nudger is the workflow reminder ladder; nil when workflow is off.
	Nudger *workflow.Nudger
	Loaded Loaded
	// Problems are load problems worth showing (bad skills, manifests,
	// hooks, unknown plugins or tool sets).
	Problems []string

	background *tools.Background
	rules      *rules
	reload     reloader
	opts       Options
	provider   llm.Provider
}

// Open assembles a session in the working directory of opts.
func Open(ctx context.Context, opts Options) (*App, error) {
	s := opts.Settings
	a := &App{Loaded: opts.Loaded, opts: opts}
	env, err := tools.NewEnv(opts.Cwd)
	if err != nil {
		return nil, err
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		env.Ripgrep = rg
	}
	a.Env = env

	if rep, err := tools.Reap(opts.Paths.Backgrounds()); err != nil {
		a.Problems = append(a.Problems, fmt.Sprintf("background journal: %v", err))
	} else if len(rep.Killed) > 0 {
		a.Problems = append(a.Problems, fmt.Sprintf("stopped %d background command(s) left over from an earlier run", len(rep.Killed)))
	}
	a.background = tools.NewBackground(opts.Paths.Backgrounds(), env, opts.BackgroundOutput)

	versions := &prompt.Versions{}
	nb, err := notebook.Open(opts.Paths.Notebook(env.Root), func() { versions.Notebook.Add(1) })
	if err != nil {
		return nil, err
	}
	a.Notebook = nb
	a.openMemory(opts, versions)

	a.loadSkills(opts)
	a.loadPlugins(opts)
	reg, err := a.buildRegistry(opts)
	if err != nil {
		return nil, err
	}
	a.Tools = reg

	r, warns, err := newRules(s.Permission, s.ProjectPermission)
	if err != nil {
		return nil, fmt.Errorf("%s: permission: %w", opts.Paths.ConfigFile(), err)
	}
	a.Problems = append(a.Problems, warns...)
	a.rules = r

	sessionID := uuid.Must(uuid.NewV7()).String()
	a.Gate = &agent.Gate{Plugins: a.Plugins, Rules: r, Approver: opts.Approver, Yolo: opts.Yolo,
		AutoApprove: a.Plugins.AutoApproved, Cwd: env.Root}
	observers := []agent.TurnObserver{pluginObserver{host: a.Plugins}}
	if !opts.NoPlugins && s.HooksEnabled {
		a.openHooks(opts, sessionID)
		if a.Hooks != nil {
			a.Gate.Hooks = hookGate{runner: a.Hooks, cwd: env.Root}
			observers = append(observers, hookObserver{runner: a.Hooks})
		}
	}

	variant, err := a.variant(s)
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
	a.Prompt = prompt.NewBuilder(a.promptSources(ctx, opts, variant, versions), versions)
	observers = append(observers, workspaceObserver{ws: a.Workspace, tools: reg})
	if s.WorkflowEnabled {
		a.Nudger = workflow.NewNudger()
		observers = append(observers, a.Nudger)
	}
	a.Session, err = agent.New(agent.Config{
		Provider: provider, Model: s.Model, SessionID: sessionID, Env: env, Tools: reg, Gate: a.Gate,
		Prompter: a.Prompt, Variant: variant, Filter: a.filter(opts),
		CacheSystemPrefix: s.CacheSystemPrefix, Observers: observers, BeforeTurn: a.beforeTurn,
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Close stops what the session started: background commands first.
func (a *App) Close() {
	if a.background == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.background.StopAll(ctx)
}

// Background is the manager of background commands, for /bash.
func (a *App) Background() *tools.Background { return a.background }

func (a *App) variant(s config.Settings) (agent.Variant, error) {
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

func (a *App) filter(opts Options) tools.Filter {
	sets := tools.DefaultSets()
	if opts.Settings.ToolSets != nil {
		var unknown []string
		names := opts.Settings.ToolSets
		sets, unknown = tools.ParseSets(names)
		if len(unknown) > 0 {
			a.Problems = append(a.Problems, tools.UnknownSetsWarning(unknown))
		}
	}
	f := tools.Filter{Sets: sets}
	if opts.Headless {
		f.Withhold = append(f.Withhold, "ask")
	}
	return f
}

func (a *App) openHooks(opts Options, sessionID string) {
	set, problems := hooks.Load(filepath.Join(config.ProjectDir(a.Env.Root), "hooks"), opts.Paths.Hooks())
	for _, p := range problems {
		a.Problems = append(a.Problems, fmt.Sprintf("hook %s: %s", p.Path, p.Err))
	}
	trust, err := hooks.OpenTrust(opts.Paths.HookTrust())
	if err != nil {
		a.Problems = append(a.Problems, fmt.Sprintf("hook approvals: %v (every hook blocks until this is fixed)", err))
	}
	a.Hooks = hooks.NewRunner(set, trust, hooks.Options{
		DefaultTimeout: opts.Settings.HookTimeout, CacheDir: opts.Paths.HookCache(),
		SessionID: sessionID, ProjectDir: a.Env.Root, Validate: newSchemaValidator(a.Tools).Validate,
	})
}

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }

// homeDir is where shiro keeps state, for the protect plugin.
func stateDir(p config.Paths) string {
	if abs, err := filepath.Abs(p.State()); err == nil {
		return abs
	}
	return p.State()
}
