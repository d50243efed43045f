// Package commands is shiro's slash commands, run on the session's side of
// the protocol: a front end submits `/cost` as a Command op and gets the
// output back as an event, so the terminal UI, headless mode
// (`shiro -p /cost`) and an editor run the same commands the same way. A
// command that needs a decision answers with choices — command lines the
// person may pick — instead of opening a dialog of its own.
package commands

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/catalog"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/registry"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Host is what the commands act on around the session: the parts of the
// composition root, which implements it. The session itself is reached
// only through the Conversation the set is bound to.
type Host interface {
	Tools() *tool.Registry
	// ProviderLabel names the provider preset (/cost, /model); ListModels
	// asks the provider, warning says when the preset's list stood in.
	ProviderLabel() string
	ListModels(ctx context.Context) (models []string, warning string, err error)
	// CacheLines and Catalog are /cost's prompt-cache report and prices.
	CacheLines() []string
	Catalog() *catalog.Catalog
	Tasks() []protocol.Task
	DescribeSkills() string
	DescribePlugins() string
	Grants() []string
	// Hooks is nil when hooks are off, Jobs when background commands are.
	Hooks() *hooks.Runner
	Registry() *registry.Client
	Jobs() Jobs
	// Reload reloads skills and plugins at the next turn.
	Reload()
	// NeedsScaffold, Scaffold and InitPrompt are /init's side: the
	// workflow files and the prompt that has the agent write AGENTS.md.
	NeedsScaffold() bool
	Scaffold() (written, kept []string, err error)
	InitPrompt(scaffolded bool) string
	Workflow() WorkflowState
	// LSP is /lsp's report on the language servers.
	LSP() string
	// The sides of the everyday commands (ux.go), the session commands
	// (sessions.go), and /undo, /redo, /changes and /diff (checkpoints.go).
	UXHost
	SessionHost
	CheckpointHost
}

// env is what a command runs with: the host, and the conversation it may
// change.
type env struct {
	Host
	conv Conversation
}

// Jobs are the session's background commands.
type Jobs interface {
	List() []Job
	Stop(ctx context.Context, handle int) (Job, error)
}

// Job is one background command.
type Job struct {
	Handle  int
	Name    string
	Command string
	Status  string
	Running bool
}

// command is one slash command. One table drives the listing, /help and
// the parser, so they cannot disagree.
type command struct {
	name    string
	args    string
	summary string
	aliases []string
	// immediate commands only show something or change settings the
	// session itself applies at the turn boundary, so they run at once;
	// the others wait for the running turn.
	immediate bool
	run       func(ctx context.Context, h env, args string) (agent.CommandOutcome, error)
	// runSet, instead of run, is for the commands that need the set itself
	// (its custom commands, a setup in progress).
	runSet func(s *Set, ctx context.Context, args string) (agent.CommandOutcome, error)
}

func table() []command {
	return append([]command{
		{name: "help", summary: "list commands", aliases: []string{"?"}, immediate: true, runSet: (*Set).runHelp},
		{name: "agent", args: "[name]", summary: "switch agent: default, quick, deep, plan, review", immediate: true, run: runAgent},
		{name: "mode", args: "[default | accept-edits | plan]", summary: "permission mode: accept-edits runs workspace edits unasked, plan is read-only (shift-tab cycles)", immediate: true, run: runMode},
		{name: "plan", summary: "the plan you last approved in this session", immediate: true, run: runPlan},
		{name: "think", args: "[level]", summary: "thinking level: off, low, medium, high, max", immediate: true, run: runThink},
		{name: "model", args: "[id]", summary: "switch model (no id: pick from the provider's list)", immediate: true, run: runModel},
		{name: "models", summary: "list the provider's models to pick one", immediate: true, run: runModels},
		{name: "cost", summary: "dollars (session, turn, subagents), cache savings, ceilings, tokens", immediate: true, run: runCost},
		{name: "tools", summary: "the tools offered this turn and their sets", immediate: true, run: runTools},
		{name: "todos", summary: "the task list", immediate: true, run: runTodos},
		{name: "skills", summary: "skills: name, origin, description", immediate: true, run: runSkills},
		{name: "plugins", summary: "active plugins in chain order and load problems", immediate: true, run: runPlugins},
		{name: "hooks", args: "[review | approve NAME [DIGEST] | revoke NAME]", summary: "external hooks and their approval state", immediate: true, run: runHooks},
		{name: "permissions", summary: "what `always` has granted this session", immediate: true, run: runPermissions},
		{name: "bash", args: "[list | stop ID | stop newest | stop all]", summary: "background commands", immediate: true, run: runBash},
		{name: "registry", args: "[list | installed | search Q | add NAME | remove NAME]", summary: "skills and plugins from the registry", immediate: true, run: runRegistry},
		{name: "mcp", args: "[review | approve NAME [DIGEST]]", summary: "MCP servers: state, tools, schema bytes; approve a project's server", immediate: true, run: runMCP},
		{name: "statusline", args: "[approve DIGEST]", summary: "the status line command and where it comes from; approve a project's", immediate: true, run: runStatusLine},
		{name: "lsp", summary: "language servers: what runs, for which files, and its state", immediate: true, run: runLSP},
		{name: "workflow", summary: "the project workflow: whether its policy is in the prompt, and the nudges sent", immediate: true, run: runWorkflow},
		{name: "init", args: "[scaffold | no-scaffold]", summary: "write AGENTS.md for this project (and the tracker files, if you like)", run: runInit},
		{name: "clear", summary: "start over: clear the conversation", run: runClear},
	}, append(append(uxCommands(), sessionCommands()...), checkpointCommands()...)...)
}

// Set is the commands of one session; it implements agent.Commander.
type Set struct {
	host Host
	conv Conversation
	cmds []command
	ux   *uxState
}

// New makes the command set over h and the conversation it runs in, with
// the custom commands of its folders.
func New(h Host, conv Conversation) *Set {
	s := &Set{host: h, conv: conv, cmds: table(), ux: &uxState{}}
	s.Refresh()
	return s
}

// Bind gives a set made before its session (which takes the set when it
// starts) the conversation, before any op can reach a command.
func (s *Set) Bind(conv Conversation) { s.conv = conv }

// List implements agent.Commander.
func (s *Set) List() []protocol.CommandInfo {
	out := make([]protocol.CommandInfo, len(s.cmds))
	for i, c := range s.cmds {
		out[i] = protocol.CommandInfo{Name: c.name, Args: c.args, Summary: c.summary, Immediate: c.immediate, Aliases: c.aliases}
	}
	return append(append(out, s.customInfos()...), s.extraInfos()...)
}

// Immediate implements agent.Commander: an unknown command runs at once,
// so its error arrives at once.
func (s *Set) Immediate(line string) bool {
	name, _ := Parse(line)
	c, ok := s.lookup(name)
	if !ok && (s.customNamed(name) != nil || s.extraNamed(name) != nil) {
		return false // it becomes a turn: it waits like one
	}
	return !ok || c.immediate
}

// Run implements agent.Commander.
func (s *Set) Run(ctx context.Context, line string) (agent.CommandOutcome, error) {
	name, args := Parse(line)
	c, ok := s.lookup(name)
	if !ok {
		if cc := s.customNamed(name); cc != nil {
			return s.runCustom(ctx, cc, args)
		}
		if e := s.extraNamed(name); e != nil {
			return e.Run(ctx, args)
		}
		return agent.CommandOutcome{}, fmt.Errorf("unknown command /%s: /help lists the commands", name)
	}
	if c.runSet != nil {
		return c.runSet(s, ctx, args)
	}
	return c.run(ctx, env{Host: s.host, conv: s.conv}, args)
}

func (s *Set) lookup(name string) (command, bool) {
	for _, c := range s.cmds {
		if c.name == name {
			return c, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, true
			}
		}
	}
	return command{}, false
}

// Parse splits "/name args" into the lower-cased name and the trimmed
// arguments.
func Parse(line string) (name, args string) {
	line = strings.TrimPrefix(strings.TrimSpace(line), "/")
	name, args, _ = strings.Cut(line, " ")
	return strings.ToLower(name), strings.TrimSpace(args)
}

// text is an outcome that only shows something.
func text(s string) agent.CommandOutcome { return agent.CommandOutcome{Output: s} }

// sortedCopy returns s sorted, leaving s alone.
func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
