package app

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/mcp"
	"github.com/shiro-neko/shiro/internal/mention"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// checkMCP checks the user's mcpServers when the config loads, so a
// server that cannot be honoured is an error naming the file and field in
// every mode, like every other table.
func checkMCP(path string, f config.File) error {
	_, _, err := mcp.ParseServers(path, "mcpServers", mcp.OriginUser, f.MCPServers)
	return err
}

// MCPDefs collects the MCP servers of a run: the editor's (client), the
// files named with --mcp-config, the user's config and the project's
// .mcp.json. Warnings are what the person should hear about.
func MCPDefs(l Loaded, files []string, client []mcp.Def) ([]mcp.Def, []string, error) {
	return mcp.Collect(mcp.Sources{
		Client: client, Files: files, User: l.Settings.MCPServers, UserFile: l.Paths.ConfigFile(),
		ProjectFile: config.ProjectMCPFile(l.Cwd),
	})
}

// NewMCP makes the manager of a run's servers: approvals, logs and OAuth
// tokens under the user's shiro state, stdio servers started from the
// workspace's command environment (scrubbed, with the user's
// env.passthrough) through its Launcher. notice hears
// failures as they happen; the person's own stdio servers get the
// network (the sandbox's Networked sibling); authorize shows a sign-in page (nil when
// nobody attends).
func NewMCP(l Loaded, env *workspace.Env, defs []mcp.Def, notice func(string), authorize func(server, url string)) *mcp.Manager {
	getenv := l.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	opts := mcp.Options{
		Defs: defs, Trust: mcp.NewTrust(l.Paths.MCPTrust()), Root: env.Root,
		Environ: env.CommandEnviron, Getenv: getenv, Passthrough: l.Settings.EnvPassthrough, Launcher: env.Launcher,
		LogDir: l.Paths.MCPLogs(), AuthDir: l.Paths.MCPAuth(), Authorize: authorize, Notice: notice,
	}
	// The person's own servers get the network, in the same sandbox
	// (issue 28 §3); a project's run as commands do.
	if sb, ok := env.Launcher.(*sandbox.Sandbox); ok {
		opts.NetLauncher = sb.Networked()
	}
	if b := l.Settings.MCP.DirectToolBudgetBytes; b != nil {
		opts.Budget = *b
		if opts.Budget == 0 {
			opts.Budget = 1 // zero asks for meta mode whatever the size
		}
	}
	if ms := l.Settings.MCP.StartTimeoutMs; ms != nil {
		opts.StartTimeout = time.Duration(*ms) * time.Millisecond
	}
	return mcp.New(opts)
}

// openMCP makes the session's manager unless --no-mcp. Nothing starts
// yet: servers start with the first turn.
func (a *App) openMCP(opts Options) error {
	if opts.NoMCP {
		return nil
	}
	defs, warnings, err := MCPDefs(opts.Loaded, opts.MCPConfigFiles, opts.MCPServers)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		a.startup = append(a.startup, Problem{Kind: "mcp", Err: w})
	}
	var authorize func(server, url string)
	if opts.Attended {
		authorize = func(server, url string) {
			a.notice(fmt.Sprintf("MCP server %s asks you to sign in: open %s (shiro waits up to 5 minutes)", server, url))
		}
	}
	a.MCP = NewMCP(opts.Loaded, a.Env, defs, a.notice, authorize)
	return nil
}

// mcpTurn is the MCP part of the turn boundary: servers start (the first
// time), changed tool lists are read, and a registry with the new tools
// comes back in the setup. New prompts are announced as commands.
func (a *App) mcpTurn(ctx context.Context, setup agent.TurnSetup) agent.TurnSetup {
	if a.MCP == nil {
		return setup
	}
	tools, changed := a.MCP.Turn(ctx)
	if changed {
		reg, err := a.registryWith(tools)
		if err != nil {
			setup.Notices = append(setup.Notices, "MCP tools left out: "+err.Error())
		} else {
			setup.Tools = reg
		}
	}
	var names []string
	for _, p := range a.MCP.Prompts() {
		names = append(names, p.Name+" "+p.Usage())
	}
	// Only the session's turn runner calls this, one turn at a time.
	if sig := strings.Join(names, "\n"); sig != a.mcpPrompts {
		a.mcpPrompts, setup.Commands = sig, true
	}
	return setup
}

// registryWith is the session's own tools and the MCP tools given.
func (a *App) registryWith(extra []tool.Tool) (*tool.Registry, error) {
	names := a.Tools.Names()
	list := make([]tool.Tool, 0, len(names)+len(extra))
	for _, n := range names {
		t, _ := a.Tools.Get(n)
		list = append(list, t)
	}
	return tool.NewRegistry(append(list, extra...)...)
}

// currentTools is the registry the session offers from now: with the MCP
// tools once the servers have started.
func (a *App) currentTools() *tool.Registry {
	if a.owner != nil {
		return a.owner.Tools()
	}
	return a.Tools
}

// announceMCP tells the person about project servers waiting for
// approval: with choices when someone attends, in one line otherwise.
func (a *App) announceMCP() {
	if a.MCP == nil {
		return
	}
	pending := a.MCP.Review()
	if len(pending) == 0 {
		return
	}
	if a.opts.Attended {
		review := commands.MCPReview(a.MCP)
		a.publish(protocol.CommandResultEvent{Command: "mcp", Output: review.Output, Choices: review.Choices})
		return
	}
	names := make([]string, len(pending))
	for i, p := range pending {
		names[i] = p.Name
	}
	a.notice(fmt.Sprintf("mcp: project server(s) %s from %s not started: not approved (review and approve with `shiro mcp approve NAME`)",
		strings.Join(names, ", "), pending[0].Source))
}

// Expand attaches what a message names: files (@path) and MCP resources
// (@server:uri). Both read the text as typed, so nothing an attachment
// contains is taken for a mention.
func (t turnStart) Expand(ctx context.Context, in agent.TurnInput) agent.TurnInput {
	a, text := t.a, in.Text
	expanded, images, notices := a.expandTurn(ctx, text)
	in.Text, in.Images, in.Notices = expanded, append(in.Images, images...), append(in.Notices, notices...)
	if a.MCP != nil {
		withResources, more := a.MCP.Attach(ctx, text)
		in.Text += strings.TrimPrefix(withResources, text)
		in.Notices = append(in.Notices, more...)
	}
	return in
}

// splitMentions undoes Expand for display: the resources came
// last, after the files.
func splitMentions(expanded string) (string, []string) {
	text, resources := mcp.SplitAttached(expanded)
	typed, files := mention.Split(text)
	return typed, append(files, resources...)
}

// MCP is the session's MCP servers; nil under --no-mcp.
func (h host) MCP() *mcp.Manager { return h.a.MCP }

// ExtraCommands offers the servers' prompts as /mcp__server__prompt: the
// filled prompt runs as the next turn.
func (h host) ExtraCommands() []commands.Extra {
	m := h.a.MCP
	if m == nil {
		return nil
	}
	var out []commands.Extra
	for _, p := range m.Prompts() {
		out = append(out, commands.Extra{
			Name: p.Name, Args: p.Usage(), Summary: p.Summary + " (MCP prompt of " + p.Server + ")",
			Run: func(ctx context.Context, args string) (agent.CommandOutcome, error) {
				text, err := m.RunPrompt(ctx, p.Name, args)
				return agent.CommandOutcome{Prompt: text}, err
			},
		})
	}
	return out
}

// InspectMCP makes a manager of the servers a session in l.Cwd would have,
// for `shiro mcp`: nobody attends (no sign-in pages), and nothing starts
// until the caller asks. Call closeAll when done: it stops the servers
// and closes their sandbox.
func InspectMCP(l Loaded, files []string) (m *mcp.Manager, closeAll func(), warnings []string, err error) {
	env, err := workspace.New(l.Cwd)
	if err != nil {
		return nil, nil, nil, err
	}
	env.EnvPassthrough = l.Settings.EnvPassthrough
	// The servers run confined as they would in a session.
	policy, err := sandboxPolicy(l, env.Root)
	if err != nil {
		return nil, nil, nil, err
	}
	sb, err := sandbox.New(policy)
	if err != nil {
		return nil, nil, nil, err
	}
	env.Launcher = sb
	defs, warnings, err := MCPDefs(l, files, nil)
	if err != nil {
		sb.Close()
		return nil, nil, nil, err
	}
	m = NewMCP(l, env, defs, nil, nil)
	// The servers first, then their sandbox: its private temp folder and
	// waiting helper would otherwise outlive the command.
	return m, func() { m.Close(); sb.Close() }, warnings, nil
}
