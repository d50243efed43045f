package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/subagent"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/tools/gittools"
)

// defaultRules adapts the built-in permission rules to the gate, as the
// app does with no config: reads are allowed, writes and bash ask.
type defaultRules struct{ rules *permission.Rules }

func (d defaultRules) Check(t tools.Tool, in json.RawMessage) agent.RuleVerdict {
	m := t.Meta()
	q := permission.Query{Tool: t.Spec().Name, ReadOnly: !m.Mutating, IsShell: t.Spec().Name == "bash"}
	if m.Subjects != nil {
		q.Subjects = m.Subjects(in)
	}
	res := d.rules.Check(q, nil)
	return agent.RuleVerdict{Decision: agent.Decision(res.Decision), Pattern: res.Pattern}
}
func (defaultRules) Grant(tools.Tool, json.RawMessage) []string        { return nil }
func (defaultRules) GrantPreview(tools.Tool, json.RawMessage) []string { return nil }

// recordingApprover is the parent's person: it answers in order and keeps
// every request.
type recordingApprover struct {
	mu       sync.Mutex
	answers  []agent.Answer
	requests []agent.ApprovalRequest
}

func (a *recordingApprover) Approve(_ context.Context, r agent.ApprovalRequest) (agent.Answer, string, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, r)
	if len(a.answers) == 0 {
		return agent.AnswerDeny, "", ""
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	return ans, "", ""
}

// summaryObserver keeps the parent's turn summaries.
type summaryObserver struct{ got []agent.TurnSummary }

func (o *summaryObserver) AfterTurn(_ context.Context, s agent.TurnSummary) []string {
	o.got = append(o.got, s)
	return nil
}

type staticPrompter string

func (p staticPrompter) Prompt([]tools.Tool) (string, string) { return string(p), "" }

// setup describes a parent session for a test.
type setup struct {
	cfg      subagent.Config
	variant  agent.Variant
	plugins  []plugin.Plugin
	answers  []agent.Answer
	provider llm.Provider
}

// parent is a real parent session: the file tools, bash, the git tools and
// the task tool, behind a real gate with the built-in rules.
type parent struct {
	root     string
	session  *agent.Session
	approver *recordingApprover
	observer *summaryObserver
}

const parentModel = "parent-model"

func newParent(t *testing.T, s setup) *parent {
	t.Helper()
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	list := tools.FileTools(env)
	list = append(list, tools.Bash(env, nil))
	list = append(list, gittools.Tools(env, nil)...)
	list = append(list, subagent.New(s.cfg))
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	p := &parent{root: env.Root, approver: &recordingApprover{answers: s.answers}, observer: &summaryObserver{}}
	gate := &agent.Gate{Plugins: plugin.NewHost(s.plugins...), Rules: defaultRules{permission.Default()},
		Approver: p.approver, Cwd: env.Root}
	p.session, err = agent.New(agent.Config{
		Provider: s.provider, Model: parentModel, SessionID: "parent", Env: env, Tools: reg, Gate: gate,
		Prompter: staticPrompter("You are the parent."), Variant: s.variant,
		Filter: tools.Filter{Sets: tools.DefaultSets()}, Observers: []agent.TurnObserver{p.observer},
	})
	if err != nil {
		t.Fatal(err)
	}
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

func (p *parent) send(ctx context.Context, prompt string) []agent.Event {
	var out []agent.Event
	for e := range p.session.Send(ctx, prompt) {
		out = append(out, e)
	}
	return out
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

func subagentEvents(evs []agent.Event) []agent.SubagentEvent {
	var out []agent.SubagentEvent
	for _, e := range evs {
		if s, ok := e.(agent.SubagentEvent); ok {
			out = append(out, s)
		}
	}
	return out
}

func find[T agent.Event](evs []agent.Event) (T, bool) {
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
