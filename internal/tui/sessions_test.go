package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// agentOpts assembles a real session for a test: the agent's loop and gate
// with scripted tools, a scripted model and scripted commands. The UI then
// talks to it through the protocol only, as it does in shiro.
type agentOpts struct {
	cassette string       // under testdata; played by the replay provider
	provider llm.Provider // instead of a cassette
	// tools are built over the session's workspace.
	tools func(work string) []tool.Tool
	// ask lists the tools whose calls ask the person (the rest are
	// allowed).
	ask      []string
	commands func(s *sessionRef) agent.Commander
	// beforeTurn runs at each turn's start, as the app's reload does.
	beforeTurn func(ctx context.Context) agent.TurnSetup
	// widen lets the sandbox allow what it refused a call.
	widen agent.Widener
	// spend prices the session's calls.
	spend agent.Spend
}

// sessionRef lets scripted commands reach the session they were built
// for, which exists only once Start returns.
type sessionRef struct{ s *agent.Owner }

// testAgent is a running session and its workspace.
type testAgent struct {
	*agent.Owner
	work string
}

func startAgent(t *testing.T, o agentOpts) *testAgent {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	provider := o.provider
	if provider == nil {
		responses, err := replay.Load(filepath.Join("testdata", o.cassette))
		if err != nil {
			t.Fatal(err)
		}
		provider = replay.New("replay", responses)
	}
	var ts []tool.Tool
	if o.tools != nil {
		ts = o.tools(work)
	}
	reg, err := tool.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	ref := &sessionRef{}
	var commands agent.Commander
	if o.commands != nil {
		commands = o.commands(ref)
	}
	var hooks agent.TurnHooks
	if o.beforeTurn != nil {
		hooks = setupHook{setup: o.beforeTurn}
	}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: provider, ProviderName: "replay", Model: "replay", SessionID: "s1", Cwd: work, Tools: reg,
		Gate:     &agent.Gate{Rules: newTestRules(o.ask...), Plugins: plugin.NewHost(), Cwd: work, Widen: o.widen},
		Prompter: staticPrompter{}, Filter: tool.Filter{Sets: tool.DefaultSets()}, Attended: true,
		Commands: commands, Hooks: hooks, Spend: o.spend,
	})
	if err != nil {
		t.Fatal(err)
	}
	ref.s = s
	return &testAgent{Owner: s, work: work}
}

// setupHook is a session's Setup hook alone.
type setupHook struct {
	agent.NoHooks
	setup func(context.Context) agent.TurnSetup
}

func (h setupHook) Setup(ctx context.Context) agent.TurnSetup { return h.setup(ctx) }

type staticPrompter struct{}

func (staticPrompter) Prompt([]tool.Tool, string) (string, string) { return "You are a test.", "" }

// testRules asks for the listed tools until `always` grants one, and
// allows everything else.
type testRules struct {
	mu      sync.Mutex
	ask     map[string]bool
	granted map[string]bool
}

func newTestRules(ask ...string) *testRules {
	r := &testRules{ask: map[string]bool{}, granted: map[string]bool{}}
	for _, name := range ask {
		r.ask[name] = true
	}
	return r
}

func (r *testRules) Check(q permission.Query) permission.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ask[q.Tool] && !r.granted[q.Tool] {
		return permission.Result{Decision: permission.Ask, Tool: q.Tool, Source: permission.SourceDefault}
	}
	return permission.Result{Decision: permission.Allow, Tool: q.Tool, Source: permission.SourceDefault}
}

func (r *testRules) GrantPreview(q permission.Query) []string { return []string{q.Tool + ` "*"`} }

func (r *testRules) Grant(q permission.Query) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.granted[q.Tool] = true
	return []string{q.Tool + ` "*"`}
}

// writeIn is the input of the fake write_file tool.
type writeIn struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// writeTool writes files under root and previews the change against the
// file on disk, as the real one does.
func writeTool(root string) tool.Tool {
	return tool.New(tool.Def[writeIn]{
		Info: tool.Info{Name: "write_file", Description: "write a file", Set: tool.SetCore, Effect: tool.Writes,
			Kind: protocol.KindEdit, Subject: tool.PathSubject},
		Plan: func(in *writeIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Path}, Writes: []string{in.Path}, Title: in.Path}
		},
		Preview: func(_ context.Context, in *writeIn) (*protocol.Diff, error) {
			before, err := readIfThere(filepath.Join(root, in.Path))
			return tool.FileDiff(in.Path, before, in.Content), err
		},
		Run: func(_ context.Context, _ tool.Runtime, in *writeIn) (tool.Result, error) {
			path := filepath.Join(root, in.Path)
			before, err := readIfThere(path)
			if err != nil {
				return tool.Result{}, err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return tool.Result{}, err
			}
			if err := os.WriteFile(path, []byte(in.Content), 0o644); err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Output: fmt.Sprintf("Wrote %d chars to %s", len(in.Content), in.Path),
				Diff: tool.FileDiff(in.Path, before, in.Content)}, nil
		},
	})
}

func readIfThere(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

// bashIn is the input of the fake bash tool.
type bashIn struct {
	Command string `json:"command"`
}

// blockingBash is a command tool that prints "started" and then runs
// until its call is stopped.
func blockingBash() tool.Tool {
	return tool.New(tool.Def[bashIn]{
		Info: tool.Info{Name: "bash", Description: "run a command", Set: tool.SetCore, Effect: tool.Runs,
			Kind: protocol.KindExecute, Subject: tool.CommandSubject},
		Plan: func(in *bashIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Command}, Commands: []string{in.Command}, Title: in.Command}
		},
		Run: func(ctx context.Context, rt tool.Runtime, _ *bashIn) (tool.Result, error) {
			rt.Emit("started\n")
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		},
	})
}

// askIn is the input of the fake ask tool.
type askIn struct {
	Question string            `json:"question"`
	Options  []protocol.Option `json:"options,omitempty"`
	Multiple bool              `json:"multiple,omitempty"`
}

// dismissedResult is what the fake ask tool tells the model when the
// person left the choice to it.
const dismissedResult = "The user left the choice to you."

// askTool puts its question to the session's person and returns the
// answer: the chosen labels and the typed text, one per line.
func askTool() tool.Tool {
	return tool.New(tool.Def[askIn]{
		Info: tool.Info{Name: "ask", Description: "ask the user", Set: tool.SetCore, Effect: tool.Reads,
			Kind: protocol.KindOther, Interactive: true},
		Plan: func(in *askIn) tool.Plan { return tool.Plan{Title: in.Question} },
		Run: func(ctx context.Context, rt tool.Runtime, in *askIn) (tool.Result, error) {
			a, err := rt.Person.Ask(ctx, rt.CallID, tool.Question{Text: in.Question, Options: in.Options, Multiple: in.Multiple})
			if err != nil {
				return tool.Result{}, err
			}
			if a.Dismissed {
				return tool.Text(dismissedResult), nil
			}
			lines := append([]string(nil), a.Chosen...)
			if a.Text != "" {
				lines = append(lines, a.Text)
			}
			return tool.Text(strings.Join(lines, "\n")), nil
		},
	})
}

// testCommand is one scripted slash command.
type testCommand struct {
	info protocol.CommandInfo
	run  func(ctx context.Context, args string) (agent.CommandOutcome, error)
}

// testCommander runs scripted commands the way the real set does.
type testCommander struct{ cmds []testCommand }

func (c *testCommander) List() []protocol.CommandInfo {
	out := make([]protocol.CommandInfo, len(c.cmds))
	for i, cmd := range c.cmds {
		out[i] = cmd.info
	}
	return out
}

func (c *testCommander) find(line string) (testCommand, string, bool) {
	name, args := parseCommand(line)
	for _, cmd := range c.cmds {
		if cmd.info.Name == name {
			return cmd, args, true
		}
	}
	return testCommand{}, "", false
}

func (c *testCommander) Immediate(line string) bool {
	cmd, _, ok := c.find(line)
	return !ok || cmd.info.Immediate
}

func (c *testCommander) Run(ctx context.Context, line string) (agent.CommandOutcome, error) {
	cmd, args, ok := c.find(line)
	if !ok {
		name, _ := parseCommand(line)
		return agent.CommandOutcome{}, fmt.Errorf("unknown command /%s", name)
	}
	return cmd.run(ctx, args)
}

// sessionCommands are scripted commands over the session: /agent and
// /think change settings with Configure (a picker without arguments),
// /clear empties the history, /cost reports the usage.
func sessionCommands(ref *sessionRef) agent.Commander {
	configure := func(c protocol.Configure, said string) (agent.CommandOutcome, error) {
		if _, err := ref.s.Submit(c); err != nil {
			return agent.CommandOutcome{}, err
		}
		return agent.CommandOutcome{Output: said}, nil
	}
	return &testCommander{cmds: []testCommand{
		{protocol.CommandInfo{Name: "agent", Args: "[name]", Summary: "switch agent", Immediate: true},
			func(_ context.Context, args string) (agent.CommandOutcome, error) {
				if args == "" {
					var choices []protocol.Choice
					for _, v := range agent.Variants() {
						choices = append(choices, protocol.Choice{Label: v.Name, Detail: v.Summary, Line: "/agent " + v.Name})
					}
					return agent.CommandOutcome{Output: "pick an agent", Choices: choices}, nil
				}
				return configure(protocol.Configure{Agent: args}, "agent is "+args+" from the next turn")
			}},
		{protocol.CommandInfo{Name: "think", Args: "[level]", Summary: "thinking level", Immediate: true},
			func(_ context.Context, args string) (agent.CommandOutcome, error) {
				return configure(protocol.Configure{Thinking: args}, "thinking is "+args+" from the next turn")
			}},
		{protocol.CommandInfo{Name: "cost", Summary: "tokens used", Immediate: true},
			func(context.Context, string) (agent.CommandOutcome, error) {
				u := ref.s.Usage()
				return agent.CommandOutcome{Output: fmt.Sprintf("tokens: %d in, %d out", u.InputTokens, u.OutputTokens)}, nil
			}},
		{protocol.CommandInfo{Name: "clear", Summary: "start over"},
			func(context.Context, string) (agent.CommandOutcome, error) {
				return agent.CommandOutcome{Output: "cleared: the conversation starts over", Change: agent.Replace{}}, nil
			}},
	}}
}

// toolResult is the result the model was sent for call id.
func toolResult(t *testing.T, s *agent.Owner, id string) llm.ToolResult {
	t.Helper()
	for _, msg := range s.History() {
		for _, p := range msg.Parts {
			if r, ok := p.(llm.ToolResult); ok && r.CallID == id {
				return r
			}
		}
	}
	t.Fatalf("no result for call %s in the history", id)
	return llm.ToolResult{}
}

// gatedProvider streams scripted responses; a response pauses at each
// gate part until the test releases it, so tests see a turn mid-stream.
type gatedProvider struct {
	mu      sync.Mutex
	resp    [][]llm.StreamPart
	next    int
	release chan struct{}
}

func newGatedProvider(resp ...[]llm.StreamPart) *gatedProvider {
	return &gatedProvider{resp: resp, release: make(chan struct{}, 16)}
}

func (p *gatedProvider) Name() string { return "gated" }

func (p *gatedProvider) Stream(ctx context.Context, _ *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		p.mu.Lock()
		if p.next >= len(p.resp) {
			p.mu.Unlock()
			yield(nil, errors.New("gated provider: no response left"))
			return
		}
		r := p.resp[p.next]
		p.next++
		p.mu.Unlock()
		for _, part := range r {
			if _, ok := part.(gate); ok {
				select {
				case <-p.release:
				case <-ctx.Done():
					yield(nil, ctx.Err())
					return
				}
				continue
			}
			if !yield(part, nil) {
				return
			}
		}
	}
}

// gate is a stream part that pauses the gated provider.
type gate struct{ llm.Finish }

func finish(in, out int) llm.StreamPart {
	return llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: in, OutputTokens: out}}
}
