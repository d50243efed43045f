package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/subagent"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/files"
	"github.com/shiro-neko/shiro/internal/tools/git"
	"github.com/shiro-neko/shiro/internal/tools/search"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// defaultRules are the built-in permission rules, as a session with no
// config has them: reads are allowed, writes and shell commands ask.
type defaultRules struct{ rules *permission.Rules }

func (d defaultRules) Check(q permission.Query) permission.Result { return d.rules.Check(q, nil) }
func (defaultRules) Grant(permission.Query) []string              { return nil }
func (defaultRules) GrantPreview(permission.Query) []string       { return nil }

// summaryObserver keeps the turn summaries of the session whose Ended
// hook it is.
type summaryObserver struct {
	agent.NoHooks
	mu  sync.Mutex
	got []agent.TurnSummary
}

func (o *summaryObserver) Ended(_ context.Context, e agent.TurnEnd) agent.Ending {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, e.TurnSummary)
	return agent.Ending{}
}

func (o *summaryObserver) summaries() []agent.TurnSummary {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.got)
}

type staticPrompter string

func (p staticPrompter) Prompt([]tool.Tool, string) (string, string) { return string(p), "" }

// setup describes a parent session for a test.
type setup struct {
	cfg        subagent.Config
	variant    agent.Variant
	plugins    []plugin.Plugin
	answers    []protocol.Decision
	provider   llm.Provider
	unattended bool
	// filter replaces the parent's default filter (the default tool sets).
	filter *tool.Filter
	// subagentHooks are the parent's Config.SubagentHooks.
	subagentHooks agent.TurnHooks
}

// parent is a real parent session: the file, search and git tools, a
// shell, the task list, the ask tool, a network tool and the task tool,
// behind a real gate with the built-in rules. Its front end answers
// approval requests in order and keeps them.
type parent struct {
	root     string
	session  *agent.Owner
	registry *tool.Registry
	observer *summaryObserver
	shellRun *atomic.Int32

	mu       sync.Mutex
	answers  []protocol.Decision
	requests []protocol.ApprovalRequestEvent
}

const parentModel = "parent-model"

func newParent(t *testing.T, s setup) *parent {
	t.Helper()
	env, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	nb, err := notebook.Open("", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &parent{root: env.Root, observer: &summaryObserver{}, shellRun: &atomic.Int32{}, answers: s.answers}
	list := files.Tools(env)
	list = append(list, search.Tools(env)...)
	list = append(list, git.Tools(env, nil)...)
	list = append(list, shellTool(env.Root, p.shellRun), fetchTool(), nb.Tool(), askuser.New(), subagent.New(s.cfg))
	p.registry, err = tool.NewRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	filter := tool.Filter{Sets: tool.DefaultSets()}
	if s.filter != nil {
		filter = *s.filter
	}
	p.session, err = agent.Start(t.Context(), agent.Config{
		Provider: s.provider, Model: parentModel, SessionID: "parent", Cwd: env.Root, Tools: p.registry,
		Gate:     &agent.Gate{Plugins: plugin.NewHost(s.plugins...), Rules: defaultRules{permission.Default()}, Cwd: env.Root},
		Prompter: staticPrompter("You are the parent."), Variant: s.variant, Filter: filter,
		Attended: !s.unattended, Hooks: p.observer, SubagentHooks: s.subagentHooks,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = p.session.Submit(protocol.Interrupt{})
		_, _ = p.session.Submit(protocol.Shutdown{})
		for range p.session.Events() {
		}
	})
	return p
}

func (p *parent) write(t *testing.T, rel, content string) {
	t.Helper()
	abs := filepath.Join(p.root, rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// send runs one parent turn as the parent's front end would: every
// approval request on its stream, a subagent's included, is answered with
// the next answer (no when they run out). Nothing may ask a question.
func (p *parent) send(t *testing.T, ctx context.Context, prompt string) []protocol.Event {
	t.Helper()
	var out []protocol.Event
	for e := range p.session.Send(ctx, prompt) {
		switch e := e.(type) {
		case protocol.ApprovalRequestEvent:
			if _, err := p.session.Submit(protocol.Approval{ID: e.ID, Decision: p.answer(e)}); err != nil {
				t.Errorf("answering %s: %v", e.ID, err)
			}
		case protocol.QuestionEvent:
			t.Errorf("a question reached the person: %+v", e)
		}
		out = append(out, e)
	}
	return out
}

func (p *parent) answer(r protocol.ApprovalRequestEvent) protocol.Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, r)
	if len(p.answers) == 0 {
		return protocol.No
	}
	d := p.answers[0]
	p.answers = p.answers[1:]
	return d
}

func (p *parent) approvals() []protocol.ApprovalRequestEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// namesWhere lists the parent's tools, under the parent's default filter,
// that keep satisfies: what a subagent should be offered.
func (p *parent) namesWhere(keep func(*tool.Info) bool) []string {
	var names []string
	for _, tl := range p.registry.Active(tool.Filter{Sets: tool.DefaultSets()}) {
		if i := tl.Info(); keep(i) {
			names = append(names, i.Name)
		}
	}
	return names
}

type shellInput struct {
	Command string `json:"command"`
}

// shellTool runs command lines with sh, as the bash tool does, so that the
// guard has lines to judge and a call that got through would show on disk.
func shellTool(root string, runs *atomic.Int32) tool.Tool {
	return tool.New(tool.Def[shellInput]{
		Info: tool.Info{Name: "bash", Description: "Run a shell command.", Guidance: "bash: run a command.",
			Set: tool.SetCore, Effect: tool.Runs, Kind: protocol.KindExecute, Subject: tool.CommandSubject},
		Plan: func(in *shellInput) tool.Plan {
			return tool.Plan{Subjects: []string{in.Command}, Commands: []string{in.Command}, Title: in.Command}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *shellInput) (tool.Result, error) {
			runs.Add(1)
			cmd := exec.CommandContext(ctx, "sh", "-c", in.Command)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			return tool.Text(string(out)), err
		},
	})
}

type fetchInput struct {
	URL string `json:"url"`
}

// fetchTool stands for a tool that reaches the network; no subagent gets
// one, so it never runs.
func fetchTool() tool.Tool {
	return tool.New(tool.Def[fetchInput]{
		Info: tool.Info{Name: "fetch", Description: "Fetch a URL.", Set: tool.SetCore, Effect: tool.Fetches,
			Kind: protocol.KindFetch, Subject: tool.URLSubject},
		Run: func(context.Context, tool.Runtime, *fetchInput) (tool.Result, error) {
			return tool.Result{}, fmt.Errorf("fetch must never run in these tests")
		},
	})
}

// wire starts the loopback API with replies and returns an Anthropic
// provider talking to it, so tests can read the requests on the wire.
func wire(t *testing.T, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider) {
	t.Helper()
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	srv := llmtest.New(t, replies...)
	return srv, anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-test"})
}

func call(id, name, input string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Input: input}},
		Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 10}}
}

func text(s string) llmtest.Reply {
	return llmtest.Reply{Text: s, Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 10}}
}

// wireRequest is the part of an Anthropic request body tests look at.
type wireRequest struct {
	Model  string `json:"model"`
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
}

func decode(t *testing.T, r llmtest.Request) wireRequest {
	t.Helper()
	var w wireRequest
	if err := json.Unmarshal(r.Body, &w); err != nil {
		t.Fatalf("request body: %v\n%s", err, r.Body)
	}
	return w
}

func (w wireRequest) system() string {
	var parts []string
	for _, s := range w.System {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n")
}

func (w wireRequest) toolNames() []string {
	var names []string
	for _, t := range w.Tools {
		names = append(names, t.Name)
	}
	return names
}

// toolResults returns the text of every tool_result block sent.
func (w wireRequest) toolResults(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, m := range w.Messages {
		for _, c := range m.Content {
			var block struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(c, &block); err != nil || block.Type != "tool_result" {
				continue
			}
			out = append(out, blockText(block.Content))
		}
	}
	return out
}

// blockText flattens a tool_result's content, a string or text blocks.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "")
}

func subagentEvents(evs []protocol.Event) []protocol.SubagentEvent {
	var out []protocol.SubagentEvent
	for _, e := range evs {
		if s, ok := e.(protocol.SubagentEvent); ok {
			out = append(out, s)
		}
	}
	return out
}

func find[T protocol.Event](evs []protocol.Event) (T, bool) {
	for _, e := range evs {
		if v, ok := e.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// scripted is a provider that answers each request with a function of it;
// it serves tests where replies depend on which subagent is asking, which
// an ordered script cannot know when subagents run at once.
type scripted struct {
	answer func(ctx context.Context, req *llm.Request) ([]llm.StreamPart, error)
}

func (s scripted) Name() string { return "scripted" }

func (s scripted) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		parts, err := s.answer(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, p := range parts {
			if !yield(p, nil) {
				return
			}
		}
	}
}

// isSubagent tells a subagent's request from the parent's by its prompt.
func isSubagent(req *llm.Request) bool {
	return len(req.System) > 0 && strings.Contains(req.System[0].Text, " subagent of shiro")
}

// brief is the first user message of a request: a subagent's brief.
func brief(req *llm.Request) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			return m.PlainText()
		}
	}
	return ""
}

func finish(parts ...llm.StreamPart) []llm.StreamPart {
	return append(parts, llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: 7, OutputTokens: 3}})
}

func toolCallPart(id, name, input string) llm.StreamPart {
	return llm.ToolCallDone{ID: id, Name: name, Input: json.RawMessage(input)}
}

// parentScript answers the parent's requests in order.
type parentScript struct {
	mu    sync.Mutex
	steps [][]llm.StreamPart
	seen  []*llm.Request
}

func (p *parentScript) next(req *llm.Request) ([]llm.StreamPart, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, req)
	if len(p.steps) == 0 {
		return nil, fmt.Errorf("the parent script ran out")
	}
	s := p.steps[0]
	p.steps = p.steps[1:]
	return s, nil
}

// lastToolResult is the output of the tool result the parent received last.
func (p *parentScript) lastToolResult(t *testing.T) llm.ToolResult {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	req := p.seen[len(p.seen)-1]
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for _, part := range req.Messages[i].Parts {
			if r, ok := part.(llm.ToolResult); ok {
				return r
			}
		}
	}
	t.Fatal("the parent received no tool result")
	return llm.ToolResult{}
}
