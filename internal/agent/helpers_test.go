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
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// fakeIn is the input of every fake tool: an optional command (so the
// guard has a line to judge) and anything else a test sends.
type fakeIn struct {
	Command string `json:"command,omitempty"`
	X       int    `json:"x,omitempty"`
	Path    string `json:"path,omitempty"`
}

// fakeTool is a tool whose behaviour a test scripts.
type fakeTool struct {
	name   string
	effect tool.Effect
	// inert marks every plan Inert (a bash line run in-process).
	inert bool
	runs  atomic.Int32
	run   func(ctx context.Context, rt tool.Runtime, in *fakeIn) (string, error)
}

func (f *fakeTool) build() tool.Tool {
	effect := f.effect
	if effect == 0 {
		effect = tool.Reads
	}
	return tool.New(tool.Def[fakeIn]{
		Info: tool.Info{Name: f.name, Description: "test tool", Set: tool.SetCore, Effect: effect, Kind: protocol.KindOther, Subject: tool.CommandSubject},
		Plan: func(in *fakeIn) tool.Plan {
			p := tool.Plan{Title: in.Command, Inert: f.inert}
			if in.Command != "" {
				p.Commands = []string{in.Command}
				p.Subjects = []string{in.Command}
			}
			if in.Path != "" {
				p.Writes = []string{in.Path}
			}
			return p
		},
		Run: func(ctx context.Context, rt tool.Runtime, in *fakeIn) (tool.Result, error) {
			f.runs.Add(1)
			if f.run == nil {
				return tool.Text("ok"), nil
			}
			out, err := f.run(ctx, rt, in)
			return tool.Text(out), err
		},
	})
}

// rulesFunc adapts a function to agent.Rules.
type rulesFunc func(q permission.Query) permission.Decision

func (r rulesFunc) Check(q permission.Query) permission.Result {
	return permission.Result{Decision: r(q), Tool: q.Tool, Source: permission.SourceConfig, Pattern: "*"}
}
func (r rulesFunc) Grant(permission.Query) []string        { return []string{"*"} }
func (r rulesFunc) GrantPreview(permission.Query) []string { return []string{"*"} }

func allowAll() agent.Rules {
	return rulesFunc(func(permission.Query) permission.Decision { return permission.Allow })
}

func askAll() agent.Rules {
	return rulesFunc(func(permission.Query) permission.Decision { return permission.Ask })
}

type staticPrompter struct{ stable, volatile string }

func (p staticPrompter) Prompt([]tool.Tool, string) (string, string) { return p.stable, p.volatile }

// resp builds a scripted model response.
func resp(parts ...llm.StreamPart) replay.Response {
	return append(replay.Response(parts), llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}})
}

func toolCall(id, name, input string) llm.StreamPart {
	return llm.ToolCallDone{ID: id, Name: name, Input: json.RawMessage(input)}
}

type options struct {
	gate     *agent.Gate
	attended bool
	variant  agent.Variant
	provider llm.Provider
	hooks    agent.TurnHooks
	spend    agent.Spend
	maxSteps int
	commands agent.Commander
	// maxContinues is Config.MaxContinues.
	maxContinues int
	// outputSchema is Config.OutputSchema.
	outputSchema json.RawMessage
	// mode is Config.Mode.
	mode permission.Mode
}

type harness struct {
	session  *agent.Owner
	provider *replay.Provider
	wire     *recorder
	answers  *answerer
}

// recorder keeps every request a session sends, as the wire would show.
type recorder struct {
	inner llm.Provider
	mu    sync.Mutex
	reqs  []llm.Request
}

func (r *recorder) Name() string { return r.inner.Name() }

func (r *recorder) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	r.mu.Lock()
	r.reqs = append(r.reqs, *req)
	r.mu.Unlock()
	return r.inner.Stream(ctx, req)
}

func (r *recorder) requests() []llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.Request(nil), r.reqs...)
}

// answerer answers approval requests in order (deny when it runs out) and
// records them, as a person at the keyboard would.
type answerer struct {
	mu       sync.Mutex
	answers  []protocol.Decision
	requests []protocol.ApprovalRequestEvent
}

func (a *answerer) next(r protocol.ApprovalRequestEvent) protocol.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, r)
	if len(a.answers) == 0 {
		return protocol.No
	}
	d := a.answers[0]
	a.answers = a.answers[1:]
	return d
}

func (a *answerer) seen() []protocol.ApprovalRequestEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]protocol.ApprovalRequestEvent(nil), a.requests...)
}

func newHarness(t testing.TB, o options, fakes []*fakeTool, responses ...replay.Response) *harness {
	t.Helper()
	ts := make([]tool.Tool, len(fakes))
	for i, f := range fakes {
		ts[i] = f.build()
	}
	return newHarnessTools(t, o, ts, responses...)
}

func newHarnessTools(t testing.TB, o options, ts []tool.Tool, responses ...replay.Response) *harness {
	t.Helper()
	reg, err := tool.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{provider: replay.New("test", responses), answers: &answerer{}}
	gate := o.gate
	if gate == nil {
		gate = &agent.Gate{Rules: allowAll()}
	}
	if gate.Plugins == nil {
		gate.Plugins = plugin.NewHost()
	}
	var inner llm.Provider = h.provider
	if o.provider != nil {
		inner = o.provider
	}
	h.wire = &recorder{inner: inner}
	provider := h.wire
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: provider, Model: "test-model", SessionID: "s1", Cwd: t.TempDir(), Tools: reg, Gate: gate,
		Prompter: staticPrompter{stable: "You are a test.", volatile: ""},
		Filter:   tool.Filter{Sets: tool.DefaultSets()}, Attended: o.attended, Variant: o.variant,
		Hooks: o.hooks, Spend: o.spend, MaxSteps: o.maxSteps, Commands: o.commands,
		MaxContinues: o.maxContinues, OutputSchema: o.outputSchema, Mode: o.mode,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Interrupt{})
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	h.session = s
	return h
}

// collect runs one turn, answering approvals with the harness's answers,
// and returns its events without the session event that opens a session.
func (h *harness) collect(ctx context.Context, prompt string) []protocol.Event {
	var out []protocol.Event
	for e := range h.session.Send(ctx, prompt) {
		switch e := e.(type) {
		case protocol.SessionEvent:
			continue
		case protocol.ApprovalRequestEvent:
			_, _ = h.session.Submit(protocol.Approval{ID: e.ID, Decision: h.answers.next(e)})
		}
		out = append(out, e)
	}
	return out
}

func types(evs []protocol.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = protocol.TypeOf(e)
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

// cancellingProvider streams a complete tool call and then cancels the turn
// before the response finishes, as a person pressing esc would.
type cancellingProvider struct{ cancel func() }

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

// withScript is a provider playing responses, for sessions a test starts by
// hand.
func (*harness) withScript(responses ...replay.Response) llm.Provider {
	return replay.New("test", responses)
}

// hookFuncs is a TurnHooks whose stages are the functions set; the others
// take no part.
type hookFuncs struct {
	agent.NoHooks
	setup  func(context.Context) agent.TurnSetup
	expand func(context.Context, agent.TurnInput) agent.TurnInput
	ended  func(context.Context, agent.TurnEnd) agent.Ending
}

func (h hookFuncs) Setup(ctx context.Context) agent.TurnSetup {
	if h.setup == nil {
		return agent.TurnSetup{}
	}
	return h.setup(ctx)
}

func (h hookFuncs) Expand(ctx context.Context, in agent.TurnInput) agent.TurnInput {
	if h.expand == nil {
		return in
	}
	return h.expand(ctx, in)
}

func (h hookFuncs) Ended(ctx context.Context, e agent.TurnEnd) agent.Ending {
	if h.ended == nil {
		return agent.Ending{}
	}
	return h.ended(ctx, e)
}
