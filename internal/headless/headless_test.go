package headless_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

type scripted [][]agent.Event

func (s *scripted) Send(context.Context, string) iter.Seq[agent.Event] {
	evs := (*s)[0]
	*s = (*s)[1:]
	return func(yield func(agent.Event) bool) {
		for _, e := range evs {
			if !yield(e) {
				return
			}
		}
	}
}

func TestTextModeSplitsAnswerAndProgress(t *testing.T) {
	s := &scripted{{
		agent.TextEvent{Text: "Looking"},
		agent.ToolCallEvent{ID: "1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
		agent.ToolDeniedEvent{ID: "1", Name: "bash", By: "headless", Reason: "no"},
		agent.NoticeEvent{Text: "retrying"},
		agent.TextEvent{Text: "done."},
		agent.DoneEvent{HasUsage: true},
	}}
	var out, errb bytes.Buffer
	code := headless.Run(t.Context(), s, headless.Single("x"), headless.Options{Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("code = %d", code)
	}
	if out.String() != "Looking\ndone.\n" {
		t.Fatalf("stdout = %q", out.String())
	}
	want := "[tool] bash {\"command\":\"ls\"}\n[denied] bash (run with --yolo to allow tool use in headless mode)\n[notice] retrying\n"
	if errb.String() != want {
		t.Fatalf("stderr = %q", errb.String())
	}
}

func TestAnErrorEventExitsOne(t *testing.T) {
	s := &scripted{{agent.ErrorEvent{Error: "boom"}, agent.DoneEvent{}}}
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Single("x"), headless.Options{JSON: true, Out: &out, Err: &errb}); code != 1 {
		t.Fatalf("code = %d", code)
	}
	if out.String() != "{\"type\":\"error\",\"error\":\"boom\"}\n{\"type\":\"done\"}\n" {
		t.Fatalf("stdout = %q", out.String())
	}
}

func TestStreamJSONTurns(t *testing.T) {
	in := "{\"type\":\"user\",\"text\":\"one\"}\n\n{\"type\":\"user\",\"text\":\"two\"}\n"
	var got []string
	for p, err := range headless.StreamJSON(strings.NewReader(in)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if strings.Join(got, ",") != "one,two" {
		t.Fatalf("got %v", got)
	}
	for _, bad := range []string{`{"type":"user"}`, `{"type":"user","text":"a","x":1}`, `not json`, `{"type":"user","text":"a"} {}`} {
		for _, err := range headless.StreamJSON(strings.NewReader(bad)) {
			if err == nil || !strings.Contains(err.Error(), "stdin line 1") {
				t.Errorf("%s: err = %v", bad, err)
			}
		}
	}
}

type named string

func (n named) Spec() llm.ToolSpec                            { return llm.ToolSpec{Name: string(n)} }
func (named) Meta() tools.Meta                                { return tools.Meta{} }
func (named) Run(context.Context, tools.Call) (string, error) { return "", nil }

func TestApproverFailsClosed(t *testing.T) {
	req := agent.ApprovalRequest{Tool: named("bash")}
	if a, by, _ := (headless.Approver{}).Approve(t.Context(), req); a != agent.AnswerDeny || by != "headless" {
		t.Fatalf("got %v %s", a, by)
	}
	if a, _, _ := (headless.Approver{Yolo: true}).Approve(t.Context(), req); a != agent.AnswerOnce {
		t.Fatalf("yolo should allow, got %v", a)
	}
	req.Repeated = true
	if a, by, _ := (headless.Approver{Yolo: true}).Approve(t.Context(), req); a != agent.AnswerDeny || by != "repeat" {
		t.Fatalf("a repeated call is denied even with yolo, got %v %s", a, by)
	}
}

func FuzzStreamJSON(f *testing.F) {
	f.Add("{\"type\":\"user\",\"text\":\"one\"}\n")
	f.Add("{\"type\":\"user\",\"text\":\"\"}")
	f.Fuzz(func(t *testing.T, in string) {
		for p, err := range headless.StreamJSON(strings.NewReader(in)) {
			if err == nil && strings.TrimSpace(p) == "" {
				t.Fatal("an empty prompt was accepted")
			}
		}
	})
}
