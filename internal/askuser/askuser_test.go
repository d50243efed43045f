package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tools"
)

func run(t *testing.T, asker askuser.Asker, input string) (string, error) {
	t.Helper()
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return askuser.New(asker).Run(t.Context(), tools.Call{ID: "c1", Input: json.RawMessage(input), Env: env})
}

func answering(a askuser.Answer, got *askuser.Question) askuser.Asker {
	return askuser.AskerFunc(func(_ context.Context, q askuser.Question) (askuser.Answer, error) {
		if got != nil {
			*got = q
		}
		return a, nil
	})
}

func TestPickedOptionIsTheResult(t *testing.T) {
	var q askuser.Question
	out, err := run(t, answering(askuser.Answer{Chosen: []string{"Postgres"}}, &q),
		`{"question":" Which database? ","options":[{"label":"Postgres","detail":"what prod runs"},{"label":"SQLite"}]}`)
	if err != nil || out != "Postgres" {
		t.Fatalf("out = %q, %v", out, err)
	}
	want := askuser.Question{CallID: "c1", Text: "Which database?",
		Options: []askuser.Option{{Label: "Postgres", Detail: "what prod runs"}, {Label: "SQLite"}}}
	if q.CallID != want.CallID || q.Text != want.Text || q.Multiple || !slices.Equal(q.Options, want.Options) {
		t.Fatalf("question = %+v, want %+v", q, want)
	}
}

func TestAnswers(t *testing.T) {
	opts := `"options":[{"label":"a"},{"label":"b"},{"label":"c"}]`
	cases := []struct {
		name, input string
		answer      askuser.Answer
		want        string
	}{
		{"several picked", `{"question":"q",` + opts + `,"multiple":true}`, askuser.Answer{Chosen: []string{"a", "c"}}, "a\nc"},
		{"typed instead", `{"question":"q",` + opts + `}`, askuser.Answer{Text: " something else "}, "something else"},
		{"picked and noted", `{"question":"q",` + opts + `}`, askuser.Answer{Chosen: []string{"b"}, Text: "but hurry"}, "b\nbut hurry"},
		{"free text", `{"question":"name?"}`, askuser.Answer{Text: "shiro"}, "shiro"},
		{"dismissed", `{"question":"q",` + opts + `}`, askuser.Answer{Dismissed: true}, askuser.Dismissed},
		{"empty reply", `{"question":"name?"}`, askuser.Answer{}, askuser.Dismissed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, answering(c.answer, nil), c.input)
			if err != nil || out != c.want {
				t.Fatalf("out = %q, %v; want %q", out, err, c.want)
			}
		})
	}
	if askuser.Dismissed != "the user dismissed this; use your best judgement" {
		t.Fatalf("dismissal text changed: %q", askuser.Dismissed)
	}
}

func TestBadQuestionsAreExplained(t *testing.T) {
	cases := map[string]string{
		`{"question":"  "}`:                                                                      "question is empty",
		`{"question":"q","options":[{"label":""}]}`:                                              "options[0]: label is empty",
		`{"question":"q","options":[{"label":"a"},{"label":"a"}]}`:                               `options[1]: label "a" appears twice`,
		`{"question":"q","multiple":true}`:                                                       "multiple needs options",
		`{"question":"q","options":[` + strings.Repeat(`{"label":"x"},`, 12) + `{"label":"y"}]}`: "at most 12",
		`{"question":7}`: "invalid arguments",
	}
	for input, want := range cases {
		asked := false
		_, err := run(t, askuser.AskerFunc(func(context.Context, askuser.Question) (askuser.Answer, error) {
			asked = true
			return askuser.Answer{}, nil
		}), input)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", input, err, want)
		}
		if asked {
			t.Errorf("%s: a bad question reached the user", input)
		}
	}
}

// A front end that answers outside the question is a bug there, and the
// model must not be told something the person did not say.
func TestFrontEndAnswersOutsideTheQuestionAreRefused(t *testing.T) {
	input := `{"question":"q","options":[{"label":"a"},{"label":"b"}]}`
	if _, err := run(t, answering(askuser.Answer{Chosen: []string{"z"}}, nil), input); err == nil {
		t.Fatal("an unknown label was accepted")
	}
	if _, err := run(t, answering(askuser.Answer{Chosen: []string{"a", "b"}}, nil), input); err == nil {
		t.Fatal("two choices for a single-choice question were accepted")
	}
}

func TestCancelledQuestionEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	asker := askuser.AskerFunc(func(ctx context.Context, _ askuser.Question) (askuser.Answer, error) {
		cancel()
		<-ctx.Done()
		return askuser.Answer{}, ctx.Err()
	})
	_, err := askuser.New(asker).Run(ctx, tools.Call{ID: "c1", Input: json.RawMessage(`{"question":"q"}`)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestAskerFailureIsReported(t *testing.T) {
	_, err := run(t, askuser.AskerFunc(func(context.Context, askuser.Question) (askuser.Answer, error) {
		return askuser.Answer{}, errors.New("the UI is closing")
	}), `{"question":"q"}`)
	if err == nil || !strings.Contains(err.Error(), "the UI is closing") {
		t.Fatalf("err = %v", err)
	}
}

// defaultRules adapts the built-in permission rules to the gate.
type defaultRules struct{}

func (defaultRules) Check(t tools.Tool, in json.RawMessage) agent.RuleVerdict {
	res := permission.Default().Check(permission.Query{Tool: t.Spec().Name, ReadOnly: !t.Meta().Mutating}, nil)
	return agent.RuleVerdict{Decision: agent.Decision(res.Decision), Pattern: res.Pattern}
}
func (defaultRules) Grant(tools.Tool, json.RawMessage) []string        { return nil }
func (defaultRules) GrantPreview(tools.Tool, json.RawMessage) []string { return nil }

type noApprover struct{ t *testing.T }

func (a noApprover) Approve(context.Context, agent.ApprovalRequest) (agent.Answer, string, string) {
	a.t.Error("ask should need no approval")
	return agent.AnswerDeny, "", ""
}

type twoSteps struct{ n int }

func (p *twoSteps) Name() string { return "two-steps" }

func (p *twoSteps) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamPart, error] {
	p.n++
	first := p.n == 1
	return func(yield func(llm.StreamPart, error) bool) {
		if first {
			if !yield(llm.ToolCallDone{ID: "c1", Name: "ask", Input: json.RawMessage(`{"question":"Go on?","options":[{"label":"yes"},{"label":"no"}]}`)}, nil) {
				return
			}
		} else if !yield(llm.TextDelta{Text: "ok"}, nil) {
			return
		}
		yield(llm.Finish{Reason: llm.StopEnd}, nil)
	}
}

type prompter struct{}

func (prompter) Prompt([]tools.Tool) (string, string) { return "test", "" }

// In a real loop with the built-in rules, ask runs without a prompt, in no
// tool set, and its answer is the tool result.
func TestAskRunsInTheLoopWithoutApproval(t *testing.T) {
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(askuser.New(answering(askuser.Answer{Chosen: []string{"yes"}}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.New(agent.Config{Provider: &twoSteps{}, Model: "m", Env: env, Tools: reg,
		Gate:     &agent.Gate{Plugins: plugin.NewHost(), Rules: defaultRules{}, Approver: noApprover{t}},
		Prompter: prompter{}, Filter: tools.Filter{Sets: []tools.Set{tools.SetCore}, ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	var result string
	for e := range s.Send(t.Context(), "go") {
		if r, ok := e.(agent.ToolResultEvent); ok {
			result = r.Output
		}
	}
	if result != "yes" {
		t.Fatalf("result = %q", result)
	}
}

func FuzzAskInput(f *testing.F) {
	f.Add(`{"question":"q","options":[{"label":"a","detail":"d"},{"label":"b"}],"multiple":true}`)
	f.Add(`{"question":"q"}`)
	f.Add(`{"question":"","options":[]}`)
	f.Add(`{"options":[{"label":"a"},{"label":"a"}]}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, input string) {
		var asked askuser.Question
		picker := askuser.AskerFunc(func(_ context.Context, q askuser.Question) (askuser.Answer, error) {
			asked = q
			if len(q.Options) == 0 {
				return askuser.Answer{Text: "typed"}, nil
			}
			return askuser.Answer{Chosen: []string{q.Options[0].Label}}, nil
		})
		out, err := askuser.New(picker).Run(context.Background(), tools.Call{ID: "f", Input: json.RawMessage(input)})
		if err != nil {
			return
		}
		if strings.TrimSpace(asked.Text) == "" || asked.Text != strings.TrimSpace(asked.Text) {
			t.Fatalf("asked an empty or untrimmed question %q", asked.Text)
		}
		if len(asked.Options) > askuser.MaxOptions {
			t.Fatalf("asked with %d options", len(asked.Options))
		}
		if len(asked.Options) > 0 && out != asked.Options[0].Label {
			t.Fatalf("out = %q, want the first label %q", out, asked.Options[0].Label)
		}
	})
}
