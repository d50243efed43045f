package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tools"
)

// fakeTool is a tool whose behaviour a test scripts.
type fakeTool struct {
	name     string
	mutating bool
	runs     atomic.Int32
	run      func(ctx context.Context, c tools.Call) (string, error)
}

func (f *fakeTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.name, Description: "test tool", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (f *fakeTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetCore, Mutating: f.mutating,
		Commands: func(in json.RawMessage) []string {
			var v struct{ Command string }
			_ = json.Unmarshal(in, &v)
			if v.Command == "" {
				return nil
			}
			return []string{v.Command}
		}}
}

func (f *fakeTool) Run(ctx context.Context, c tools.Call) (string, error) {
	f.runs.Add(1)
	if f.run != nil {
		return f.run(ctx, c)
	}
	return "ok", nil
}

// rulesFunc adapts a function to agent.Rules.
type rulesFunc func(tool string, input json.RawMessage) agent.RuleVerdict

func (r rulesFunc) Check(t tools.Tool, in json.RawMessage) agent.RuleVerdict {
	return r(t.Spec().Name, in)
}
func (r rulesFunc) Grant(tools.Tool, json.RawMessage) []string        { return []string{"*"} }
func (r rulesFunc) GrantPreview(tools.Tool, json.RawMessage) []string { return []string{"*"} }

func allowAll() agent.Rules {
	return rulesFunc(func(string, json.RawMessage) agent.RuleVerdict { return agent.RuleVerdict{Decision: agent.Allow} })
}

func askAll() agent.Rules {
	return rulesFunc(func(string, json.RawMessage) agent.RuleVerdict { return agent.RuleVerdict{Decision: agent.Ask} })
}

// scriptedApprover answers approval requests in order and records them.
type scriptedApprover struct {
	mu       sync.Mutex
	answers  []agent.Answer
	requests []agent.ApprovalRequest
}

func (a *scriptedApprover) Approve(_ context.Context, r agent.ApprovalRequest) (agent.Answer, string, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, r)
	if len(a.answers) == 0 {
		return agent.AnswerDeny, "user", ""
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	return ans, "user", ""
}

type staticPrompter struct{ stable, volatile string }

func (p staticPrompter) Prompt([]tools.Tool) (string, string) { return p.stable, p.volatile }

// resp builds a scripted model response.
func resp(parts ...llm.StreamPart) replay.Response {
	return append(replay.Response(parts), llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}})
}

func toolCall(id, name, input string) llm.StreamPart {
	return llm.ToolCallDone{ID: id, Name: name, Input: json.RawMessage(input)}
}

type harness struct {
	session  *agent.Session
	provider *replay.Provider
	approver *scriptedApprover
}

func newHarness(t testing.TB, gate *agent.Gate, ts []tools.Tool, responses ...replay.Response) *harness {
	t.Helper()
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{provider: replay.New("test", responses), approver: &scriptedApprover{}}
	if gate == nil {
		gate = &agent.Gate{Rules: allowAll()}
	}
	if gate.Approver == nil {
		gate.Approver = h.approver
	}
	if gate.Plugins == nil {
		gate.Plugins = plugin.NewHost()
	}
	s, err := agent.New(agent.Config{
		Provider: h.provider, Model: "test-model", SessionID: "s1", Env: env, Tools: reg, Gate: gate,
		Prompter: staticPrompter{stable: "You are a test.", volatile: ""},
		Filter:   tools.Filter{Sets: tools.DefaultSets()},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.session = s
	return h
}

// collect runs one turn and returns its events.
func collect(ctx context.Context, s *agent.Session, prompt string) []agent.Event {
	var out []agent.Event
	for e := range s.Send(ctx, prompt) {
		out = append(out, e)
	}
	return out
}

func types(evs []agent.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type()
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

type replayResp = replay.Response

// cancellingProvider streams a complete tool call and then cancels the turn
// before the response finishes, as a person pressing esc would.
type cancellingProvider struct{ cancel context.CancelFunc }

func (p *cancellingProvider) Name() string { return "cancelling" }

func (p *cancellingProvider) Stream(ctx context.Context, _ *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		if !yield(llm.ToolCallDone{ID: "c1", Name: "echo", Input: json.RawMessage(`{}`)}, nil) {
			return
		}
		p.cancel()
		<-ctx.Done()
		yield(nil, ctx.Err())
	}
}

func withProvider(cfg agent.Config, p llm.Provider) agent.Config {
	cfg.Provider = p
	return cfg
}
