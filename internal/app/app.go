package app

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/catalog"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/learn"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/lsp"
	"github.com/shiro-neko/shiro/internal/mcp"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/store"
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
	// NoMCP starts no MCP server (--no-mcp); MCPConfigFiles are more
	// servers' files (--mcp-config); MCPServers are the editor's (ACP).
	NoMCP          bool
	MCPConfigFiles []string
	MCPServers     []mcp.Def
	// NoLSP runs no language server and offers none of their tools
	// (--no-lsp).
	NoLSP bool
	// Store keeps every step of the session as it completes; nil uses the
	// one at Paths.SessionsDB(), opened on the first step.
	Store *store.Store
	// Continue takes up the newest stored session of the workspace (-c);
	// Resume the one its id, or a prefix of it, names (-r ID). Neither
	// starts a new session. PickSession offers the workspace's sessions
	// to resume as choices at start (-r without an id).
	Continue    bool
	Resume      string
	PickSession bool
	// OutputSchema is the JSON Schema the session's answers must follow
	// (headless --output-schema); every model request carries it.
	OutputSchema json.RawMessage
}

// App is a running session and everything it owns.
type App struct {
	// Session is the door the front end gets; owner is the wiring behind
	// it, which only the app holds.
	Session *agent.Session
	owner   *agent.Owner
	Env     *workspace.Env
	Tools   *tool.Registry
	Hooks   *hooks.Runner // nil when hooks are off
	// edgeHooks runs the hooks of a turn's and the session's edges; nil
	// when hooks are off.
	edgeHooks *edgeHooks
	Notebook  *notebook.Notebook
	// Memory is the project memory; nil under --no-memory or when its
	// file could not be read (a problem says why).
	Memory *memory.Store
	Prompt *prompt.Builder
	// Workspace holds the prompt's overview, instruction files and
	// workflow policy, refreshed after every turn.
	Workspace *prompt.Workspace
	Loaded    Loaded
	// Sandbox confines every command the session runs; sandboxSwitch
	// (Env.Launcher) launches them in it, or in the wider copy a grant
	// made for the session (widen.go).
	Sandbox       *sandbox.Sandbox
	sandboxSwitch *sandbox.Switch
	// MCP runs the session's MCP servers; nil under --no-mcp.
	MCP        *mcp.Manager
	mcpPrompts string // the prompt commands last announced
	// LSP runs the workspace's language servers (lsp.go); it has none
	// when no server for the workspace is installed.
	LSP *lsp.Manager

	ext        atomic.Pointer[extensions]
	reload     atomic.Bool
	startup    []Problem
	background *bash.Background
	demand     *tool.Demand     // the on-demand tools this session has loaded
	nudger     *workflow.Nudger // nil when workflow.enabled is false
	// Learner is the background learner; nil when autoLearn is off.
	Learner  *learn.Learner
	ux       *uxParts
	sessions *sessionKeeper
	opts     Options
	provider llm.Provider

	// checkpoints snapshot the workspace at each turn's edges (/undo).
	checkpoints *checkpointer
	// catalog prices models and knows their context windows (cost.go).
	catalog *catalog.Catalog
	// statusLines are the statusLine settings, the winner first
	// (statusline.go).
	statusLines []statusSource
}

// Open assembles a session in the working directory of opts and starts it:
// read a.owner.Events() until it closes.
func Open(ctx context.Context, opts Options) (*App, error) {
	s := opts.Settings
	a := &App{Loaded: opts.Loaded, opts: opts}
	a.startup = append(a.startup, opts.Loaded.ConfigProblems()...)
	var statusProblems []Problem
	a.statusLines, statusProblems = opts.Loaded.statusSources()
	a.startup = append(a.startup, statusProblems...)
	env, err := workspace.New(opts.Cwd)
	if err != nil {
		return nil, err
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		env.Ripgrep = rg
	}
	// Commands, hooks and MCP servers get the scrubbed environment and
	// what the person's own config hands on.
	env.EnvPassthrough = s.EnvPassthrough
	env.StateDir = opts.Paths.State()
	a.Env = env
	if err := a.openSandbox(); err != nil {
		return nil, err
	}
	a.reapBackground()

	begin, err := a.openSessions(ctx, opts)
	if err != nil {
		return nil, err
	}
	// The task list belongs to the session: a new one starts empty, a
	// resumed one gets its own back, and the store keeps it.
	nb, err := notebook.Open("", a.sessions.keepTasks)
	if err != nil {
		return nil, err
	}
	a.Notebook = nb
	a.openMemory(opts)
	a.ext.Store(a.loadExtensions())
	if !opts.NoLSP {
		a.openLSP()
	}
	if err := a.buildTools(opts); err != nil {
		return nil, err
	}
	a.replayDemand(begin.history())
	if err := a.openMCP(opts); err != nil {
		return nil, err
	}

	sessionID := begin.id
	if !opts.NoPlugins && s.HooksEnabled {
		if err := a.openHooks(opts, sessionID, len(begin.history()) > 0); err != nil {
			return nil, err
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
	a.Prompt = prompt.NewBuilder(a.promptSources(ctx, opts))
	a.openUX()
	a.checkpoints = &checkpointer{a: a}
	a.catalog = newCatalog(opts.Loaded)
	a.ux.cmds = commands.New(host{a}, nil)
	if s.WorkflowEnabled {
		a.nudger = workflow.NewNudger(a.Notebook.Version)
	}
	a.Learner = a.openLearner(ctx, opts, len(begin.history()))
	a.owner, err = agent.Start(ctx, agent.Config{
		Provider: provider, Model: s.Model, ProviderName: s.Preset.ID, SessionID: sessionID, Cwd: env.Root,
		Tools: a.Tools, Gate: a.gate(a.ext.Load()), Prompter: a.Prompt, Variant: variant,
		Filter: tool.Filter{Sets: opts.Sets, NoDelegation: opts.NoSubagent, Demand: a.demand}, Attended: opts.Attended, Mode: opts.Mode,
		CacheSystemPrefix: s.CacheSystemPrefix, Hooks: a.turnHooks(), SubagentHooks: a.subagentHooks(), MaxContinues: agent.DefaultMaxContinues + s.ContinueWhileTasks,
		Commands: a.ux.cmds, SplitTurn: splitMentions, SeesImages: a.seesImages, History: begin.history(),
		Spend: a.spend(), MaxSteps: s.MaxSteps, ContextWindow: a.contextWindow, OutputLimit: a.outputLimit, CompactAt: s.CompactAt,
		OutputSchema: opts.OutputSchema,
	})
	if err != nil {
		return nil, err
	}
	a.Session = a.owner.Door()
	a.ux.cmds.Bind(a.owner)
	a.noteSandbox()
	a.announce()
	a.startConfiguredCheck()
	if err := a.sessions.started(ctx, begin, opts.PickSession); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// turnHooks are the app's part in every turn, in the order they run
// (agent.Chain): the hooks of the person's input (session_start,
// user_prompt), which see what was typed and may refuse it; how a turn
// starts (extensions, provider, @mentions); the checks that may send the
// model back before it ends (the language servers' new errors, the
// unfinished task list, then the stop hooks); the checkpoints and
// the session store; then what only watches turns end (plugins, after_turn
// hooks, the prompt's workspace parts, the file index, the workflow
// nudge, the learner), which therefore hears each turn end once.
func (a *App) turnHooks() agent.TurnHooks {
	var chain []agent.TurnHooks
	if a.edgeHooks != nil {
		chain = append(chain, a.edgeHooks)
	}
	chain = append(chain, turnStart{a: a}, lspCheck{m: a.LSP}, a.continuer(a.Loaded.Settings.ContinueWhileTasks))
	if a.Hooks != nil {
		chain = append(chain, a.stopHooks(hooks.KindStop))
	}
	chain = append(chain, a.checkpoints, a.sessions, pluginObserver{app: a})
	if a.Hooks != nil {
		chain = append(chain, hookObserver{runner: a.Hooks})
	}
	chain = append(chain, workspaceObserver{ws: a.Workspace}, uxObserver{a: a})
	if a.nudger != nil {
		chain = append(chain, a.nudger)
	}
	if a.Learner != nil {
		chain = append(chain, a.Learner)
	}
	return agent.Chain(chain...)
}

// Owner is the wiring behind the session's door, for what inspects it
// rather than converses (shiro explain asks its gate); front ends get
// Session.
func (a *App) Owner() *agent.Owner { return a.owner }

// announce tells the front end, once, what it should know before the first
// turn: load problems, a missing API key, hooks waiting for approval.
func (a *App) announce() {
	for _, p := range a.Problems() {
		a.notice(p.String())
	}
	if s := a.Loaded.Settings; s.NeedsKey() {
		a.notice(s.MissingKey(a.Loaded.Paths.ConfigFile()))
		if a.opts.Attended {
			a.announceSetup()
		}
	}
	a.announceMCP()
	a.announceStatusLine()
	if a.Hooks != nil && a.opts.Attended {
		if review := commands.HookReview(a.Hooks); len(review.Choices) > 0 {
			a.publish(protocol.CommandResultEvent{Command: "hooks", Output: review.Output, Choices: review.Choices})
		}
	} else if a.Hooks != nil {
		a.announcePendingHooks()
	}
}

// Close ends the session (a running turn is interrupted; events nobody
// read are drained) and stops what it started: background commands.
func (a *App) Close() {
	// The learner first: a run in flight is cut off rather than waited
	// for, and a turn the shutdown ends starts none.
	if a.Learner != nil {
		a.Learner.Close()
	}
	if s := a.owner; s != nil {
		_, _ = s.Submit(protocol.Interrupt{})
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	}
	if a.edgeHooks != nil {
		a.edgeHooks.closeSession(context.Background(), "exit")
	}
	if a.ux != nil {
		a.ux.diag.Stop()
	}
	a.sessions.close()
	if a.checkpoints != nil {
		a.checkpoints.close()
	}
	if a.MCP != nil {
		a.MCP.Close()
	}
	a.LSP.Close()
	if a.background != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.background.StopAll(ctx)
	}
	if a.Sandbox != nil {
		a.Sandbox.Close() // after the last command: the helper waiting for the next one goes
	}
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

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }
