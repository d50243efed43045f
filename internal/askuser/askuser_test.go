package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// personFunc adapts a function to tool.Person.
type personFunc func(ctx context.Context, callID string, q tool.Question) (protocol.Answer, error)

func (f personFunc) Ask(ctx context.Context, callID string, q tool.Question) (protocol.Answer, error) {
	return f(ctx, callID, q)
}

func run(t *testing.T, person tool.Person, input string) (string, error) {
	t.Helper()
	res, err := tooltest.Invoke(t.Context(), askuser.New(), json.RawMessage(input), tool.Runtime{CallID: "c1", Person: person})
	return res.Output, err
}

// asked is what a person was asked.
type asked struct {
	callID string
	q      tool.Question
}

func answering(a protocol.Answer, got *asked) tool.Person {
	return personFunc(func(_ context.Context, callID string, q tool.Question) (protocol.Answer, error) {
		if got != nil {
			*got = asked{callID: callID, q: q}
		}
		return a, nil
	})
}

func TestPickedOptionIsTheResult(t *testing.T) {
	var got asked
	out, err := run(t, answering(protocol.Answer{Chosen: []string{"Postgres"}}, &got),
		`{"question":" Which database? ","options":[{"label":"Postgres","detail":" what prod runs "},{"label":" SQLite"}]}`)
	if err != nil || out != "Postgres" {
		t.Fatalf("out = %q, %v", out, err)
	}
	want := tool.Question{Text: "Which database?",
		Options: []protocol.Option{{Label: "Postgres", Detail: "what prod runs"}, {Label: "SQLite"}}}
	if got.callID != "c1" || got.q.Text != want.Text || got.q.Multiple || !slices.Equal(got.q.Options, want.Options) {
		t.Fatalf("asked %+v, want %+v under c1", got, want)
	}
}

func TestAnswers(t *testing.T) {
	opts := `"options":[{"label":"a"},{"label":"b"},{"label":"c"}]`
	cases := []struct {
		name, input string
		answer      protocol.Answer
		want        string
	}{
		{"several picked", `{"question":"q",` + opts + `,"multiple":true}`, protocol.Answer{Chosen: []string{"a", "c"}}, "a\nc"},
		{"typed instead", `{"question":"q",` + opts + `}`, protocol.Answer{Text: " something else "}, "something else"},
		{"picked and noted", `{"question":"q",` + opts + `}`, protocol.Answer{Chosen: []string{"b"}, Text: "but hurry"}, "b\nbut hurry"},
		{"free text", `{"question":"name?"}`, protocol.Answer{Text: "shiro"}, "shiro"},
		{"dismissed", `{"question":"q",` + opts + `}`, protocol.Answer{Dismissed: true}, askuser.Dismissed},
		{"empty reply", `{"question":"name?"}`, protocol.Answer{}, askuser.Dismissed},
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

// A bad question is refused when the call is prepared, with a sentence
// saying what to fix, and never reaches the person.
func TestBadQuestionsAreExplained(t *testing.T) {
	cases := map[string]string{
		`{"question":"  "}`:                                                                      "question is empty",
		`{"question":"q","options":[{"label":""}]}`:                                              "options[0]: label is empty",
		`{"question":"q","options":[{"label":"a"},{"label":" a"}]}`:                              `options[1]: label "a" appears twice`,
		`{"question":"q","multiple":true}`:                                                       "multiple needs options",
		`{"question":"q","options":[` + strings.Repeat(`{"label":"x"},`, 12) + `{"label":"y"}]}`: "maxItems: array length 13 is greater than 12",
		`{"question":7}`:              "question",
		`{"options":[{"label":"a"}]}`: `missing properties: ["question"]`,
		`{"question":"q","options":[{"label":"a","why":"b"}]}`:           `unexpected additional properties ["why"]`,
		`{"question":"q","choices":["a"]}`:                               `unexpected additional properties ["choices"]`,
		`{"question":"q","options":[{"detail":"no label"}]}`:             `missing properties: ["label"]`,
		`{"question":"q","question":"Delete everything?"}`:               "duplicate key",
		`{"question":"q","options":[{"label":"a"}],"multiple":"please"}`: "multiple",
	}
	for input, want := range cases {
		asked := false
		_, err := run(t, personFunc(func(context.Context, string, tool.Question) (protocol.Answer, error) {
			asked = true
			return protocol.Answer{}, nil
		}), input)
		var ie *tool.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want an input error saying %q", input, err, want)
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
	if _, err := run(t, answering(protocol.Answer{Chosen: []string{"z"}}, nil), input); err == nil {
		t.Fatal("an unknown label was accepted")
	}
	if _, err := run(t, answering(protocol.Answer{Chosen: []string{"a", "b"}}, nil), input); err == nil {
		t.Fatal("two choices for a single-choice question were accepted")
	}
}

func TestCancelledQuestionEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	person := personFunc(func(ctx context.Context, _ string, _ tool.Question) (protocol.Answer, error) {
		cancel()
		<-ctx.Done()
		return protocol.Answer{}, ctx.Err()
	})
	_, err := tooltest.Invoke(ctx, askuser.New(), json.RawMessage(`{"question":"q"}`), tool.Runtime{CallID: "c1", Person: person})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPersonFailureIsReported(t *testing.T) {
	_, err := run(t, personFunc(func(context.Context, string, tool.Question) (protocol.Answer, error) {
		return protocol.Answer{}, errors.New("the UI is closing")
	}), `{"question":"q"}`)
	if err == nil || err.Error() != "could not ask the user: the UI is closing" {
		t.Fatalf("err = %v", err)
	}
}

// Without a person the model is told to decide for itself; nothing panics.
func TestNobodyToAskIsASentenceForTheModel(t *testing.T) {
	_, err := run(t, nil, `{"question":"q"}`)
	if err == nil || err.Error() != "No one is attending this session, so the question cannot be asked; decide for yourself." {
		t.Fatalf("err = %v", err)
	}
}

func FuzzAskInput(f *testing.F) {
	f.Add(`{"question":"q","options":[{"label":"a","detail":"d"},{"label":"b"}],"multiple":true}`)
	f.Add(`{"question":"q"}`)
	f.Add(`{"question":"","options":[]}`)
	f.Add(`{"options":[{"label":"a"},{"label":"a"}]}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, input string) {
		var got tool.Question
		picker := personFunc(func(_ context.Context, _ string, q tool.Question) (protocol.Answer, error) {
			got = q
			if len(q.Options) == 0 {
				return protocol.Answer{Text: "typed"}, nil
			}
			return protocol.Answer{Chosen: []string{q.Options[0].Label}}, nil
		})
		res, err := tooltest.Invoke(context.Background(), askuser.New(), json.RawMessage(input), tool.Runtime{CallID: "f", Person: picker})
		if err != nil {
			return
		}
		if strings.TrimSpace(got.Text) == "" || got.Text != strings.TrimSpace(got.Text) {
			t.Fatalf("asked an empty or untrimmed question %q", got.Text)
		}
		if len(got.Options) > askuser.MaxOptions {
			t.Fatalf("asked with %d options", len(got.Options))
		}
		if len(got.Options) > 0 && res.Output != got.Options[0].Label {
			t.Fatalf("out = %q, want the first label %q", res.Output, got.Options[0].Label)
		}
	})
}
