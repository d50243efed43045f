package askuser_test

import (
	"context"
	"encoding/json"
	"iter"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// TestSchemas holds ask's schema to testdata/schemas.golden.json
// (rewrite it with -update and review the diff).
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, []tool.Tool{askuser.New()}, 0)
}

func TestInfo(t *testing.T) {
	i := askuser.New().Info()
	if i.Name != "ask" || i.Set != tool.SetNone || i.Effect != tool.Reads || i.Kind != protocol.KindOther ||
		i.Subject != tool.NoSubject || !i.Interactive {
		t.Fatalf("info = %+v", i)
	}
	if i.Guidance != "ask the user one short question when a choice that matters is theirs to make; offer options, recommended first." ||
		i.Description != "Ask the user one question and wait for the answer. Use it when a choice is theirs to make and it matters "+
			"(which approach, which file, whether to go ahead), not for things you can find out yourself. Offer options when the "+
			"answers are few, with the one you recommend first; the user may still type something else. The result is the chosen "+
			"label(s) or the typed text. If the user dismisses the question, decide for yourself." {
		t.Fatalf("description %q guidance %q", i.Description, i.Guidance)
	}
}

func TestPlan(t *testing.T) {
	long := `{"question":"Which of these very long options should I take, given everything we know about the project so far?"}`
	cases := map[string]tool.Plan{
		`{"question":" Which\ndatabase? ","options":[{"label":"a"}]}`: {Title: "Which database?"},
		long: {Title: "Which of these very long options should I take, given everything we know about t…"},
	}
	for in, want := range cases {
		p, err := askuser.New().Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := p.Plan(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan %+v, want %+v", in, got, want)
		}
	}
}

// defaultRules are the built-in permission rules, as a session with no
// config has them.
type defaultRules struct{ r *permission.Rules }

func (d defaultRules) Check(q permission.Query) permission.Result { return d.r.Check(q, nil) }
func (defaultRules) Grant(permission.Query) []string              { return nil }
func (defaultRules) GrantPreview(permission.Query) []string       { return nil }

func startSession(t *testing.T, attended bool, responses ...replay.Response) (*agent.Owner, *wire) {
	t.Helper()
	reg, err := tool.NewRegistry(askuser.New())
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{Provider: replay.New("test", responses)}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: w, Model: "m", Cwd: t.TempDir(), Tools: reg,
		Gate:     &agent.Gate{Plugins: plugin.NewHost(), Rules: defaultRules{permission.Default()}},
		Prompter: prompter{}, Filter: tool.Filter{Sets: []tool.Set{tool.SetCore}, ReadOnly: true}, Attended: attended,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return s, w
}

// In a real loop with the built-in rules, ask runs without an approval, in
// no tool set and under a read-only agent; the question goes out as an
// event under its call, and the person's answer is the tool result.
func TestAskRunsInTheLoopWithoutApproval(t *testing.T) {
	s, _ := startSession(t, true,
		replay.Response{llm.ToolCallDone{ID: "c1", Name: "ask", Input: json.RawMessage(`{"question":"Go on?","options":[{"label":"yes"},{"label":"no"}]}`)}, llm.Finish{Reason: llm.StopEnd}},
		replay.Response{llm.TextDelta{Text: "ok"}, llm.Finish{Reason: llm.StopEnd}})
	var questions []protocol.QuestionEvent
	var result string
	for e := range s.Send(t.Context(), "go") {
		switch e := e.(type) {
		case protocol.ApprovalRequestEvent:
			t.Errorf("ask needed an approval: %+v", e)
			_, _ = s.Submit(protocol.Approval{ID: e.ID, Decision: protocol.No})
		case protocol.QuestionEvent:
			questions = append(questions, e)
			if _, err := s.Submit(protocol.Answer{ID: e.ID, Chosen: []string{"yes"}}); err != nil {
				t.Error(err)
			}
		case protocol.ToolResultEvent:
			result = e.Output
		case protocol.ToolErrorEvent:
			t.Errorf("ask failed: %+v", e)
		}
	}
	if len(questions) != 1 {
		t.Fatalf("questions = %+v", questions)
	}
	q := questions[0]
	if q.CallID != "c1" || q.Question != "Go on?" || !slices.Equal(q.Options, []protocol.Option{{Label: "yes"}, {Label: "no"}}) || q.Multiple {
		t.Fatalf("question event = %+v", q)
	}
	if result != "yes" {
		t.Fatalf("result = %q", result)
	}
}

// A session nobody attends never offers ask: nobody would answer.
func TestUnattendedSessionsDoNotOfferAsk(t *testing.T) {
	s, w := startSession(t, false, replay.Response{llm.TextDelta{Text: "ok"}, llm.Finish{Reason: llm.StopEnd}})
	for range s.Send(t.Context(), "go") {
	}
	reqs := w.requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	for _, spec := range reqs[0].Tools {
		if spec.Name == "ask" {
			t.Fatal("an unattended session offered ask")
		}
	}
}

// wire keeps every request the session sends.
type wire struct {
	*replay.Provider
	mu   sync.Mutex
	reqs []llm.Request
}

func (w *wire) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	w.mu.Lock()
	w.reqs = append(w.reqs, *req)
	w.mu.Unlock()
	return w.Provider.Stream(ctx, req)
}

func (w *wire) requests() []llm.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.reqs)
}

type prompter struct{}

func (prompter) Prompt([]tool.Tool, string) (string, string) { return "test", "" }
