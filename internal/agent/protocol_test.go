package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Without anyone attending, an ask is settled by policy at once: denied,
// and a repeated call is named as such, even under --yolo.
func TestUnattendedSessionsDenyAsksByPolicy(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	if d := denied(t, evs); d.By != "headless" || !strings.Contains(d.Reason, "--yolo") {
		t.Fatalf("denied = %+v", d)
	}
	if _, asked := find[protocol.ApprovalRequestEvent](evs); asked {
		t.Fatal("nobody attends, yet an approval request went out")
	}

	read := &fakeTool{name: "read"}
	call := resp(toolCall("r", "read", `{"path":"a"}`))
	h = newHarness(t, options{gate: &agent.Gate{Rules: allowAll(), Yolo: true}}, []*fakeTool{read},
		call, call, call, resp(llm.TextDelta{Text: "ok"}))
	if d := denied(t, h.collect(t.Context(), "go")); d.By != "repeat" {
		t.Fatalf("the third identical call: %+v", d)
	}
	if read.runs.Load() != 2 {
		t.Fatalf("runs = %d", read.runs.Load())
	}
}

// An attended session's approval request carries what the person needs,
// the preview included, and the answer names the request by id.
func TestApprovalRequestCarriesThePreview(t *testing.T) {
	var applied string
	write := tool.New(tool.Def[fakeIn]{
		Info: tool.Info{Name: "write", Effect: tool.Writes, Kind: protocol.KindEdit, Subject: tool.PathSubject},
		Plan: func(in *fakeIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Path}, Writes: []string{in.Path}, Title: in.Path}
		},
		Preview: func(_ context.Context, in *fakeIn) (*protocol.Diff, error) {
			return tool.FileDiff(in.Path, "old\n", "new\n"), nil
		},
		Run: func(_ context.Context, _ tool.Runtime, in *fakeIn) (tool.Result, error) {
			applied = in.Path
			return tool.Result{Output: "wrote", Diff: tool.FileDiff(in.Path, "old\n", "new\n")}, nil
		},
	})
	h := newHarnessTools(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []tool.Tool{write},
		resp(toolCall("c1", "write", `{"path":"a.txt"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.answers.answers = []protocol.Decision{protocol.Always}
	evs := h.collect(t.Context(), "go")
	reqs := h.answers.seen()
	if len(reqs) != 1 {
		t.Fatalf("requests = %+v", reqs)
	}
	r := reqs[0]
	if r.Preview == nil || !strings.Contains(r.Preview.Unified, "-old\n+new") || r.Kind != protocol.KindEdit || len(r.Grants) != 1 {
		t.Fatalf("request = %+v", r)
	}
	if applied != "a.txt" {
		t.Fatal("the approved call did not run")
	}
	call, _ := find[protocol.ToolCallEvent](evs)
	if !slices.Equal(call.Locations, []string{"a.txt"}) {
		t.Fatalf("locations = %v", call.Locations)
	}
	res, _ := find[protocol.ToolResultEvent](evs)
	if res.Diff == nil || res.Diff.Path != "a.txt" {
		t.Fatalf("result diff = %+v", res.Diff)
	}
	// The request was answered, so its id is no longer open.
	if _, err := h.session.Submit(protocol.Approval{ID: r.ID, Decision: protocol.Yes}); !errors.Is(err, protocol.ErrUnknownRequest) {
		t.Fatalf("answering twice: %v", err)
	}
}

// A hook's rewrite is decoded by the tool like the model's input; input
// the tool refuses is blocked, never run.
func TestHookRewriteTheToolRefusesIsBlocked(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	hook := hookFunc(func(string, json.RawMessage) tool.HookVerdict {
		return tool.HookVerdict{Rewritten: true, Hook: "fixer", Input: json.RawMessage(`{"command":"ls","bogus":1}`)}
	})
	h := newHarness(t, options{gate: &agent.Gate{Hooks: hook, Rules: allowAll()}}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	d := denied(t, h.collect(t.Context(), "go"))
	if d.By != "hook:fixer" || !strings.Contains(d.Reason, "bogus") || bash.runs.Load() != 0 {
		t.Fatalf("denied = %+v, runs = %d", d, bash.runs.Load())
	}
}

// Interrupting a turn while its approval is open withdraws the request:
// the front end takes the prompt down.
func TestInterruptWithdrawsAnOpenApproval(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)))
	var got []string
	var reqID string
	for e := range h.session.Send(t.Context(), "go") {
		switch e := e.(type) {
		case protocol.ApprovalRequestEvent:
			reqID = e.ID
			if _, err := h.session.Submit(protocol.Interrupt{}); err != nil {
				t.Fatal(err)
			}
		case protocol.WithdrawnEvent:
			if e.ID != reqID {
				t.Fatalf("withdrawn %q, asked %q", e.ID, reqID)
			}
		}
		got = append(got, protocol.TypeOf(e))
	}
	if !slices.Contains(got, "withdrawn") || bash.runs.Load() != 0 {
		t.Fatalf("events = %v, runs = %d", got, bash.runs.Load())
	}
}

// Shutdown while an approval is open settles it as a denial: nobody is
// left to answer, and the stream still closes.
func TestShutdownDeniesOpenApprovals(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls"}`)), resp(llm.TextDelta{Text: "ok"}))
	s := h.session
	if _, err := s.Submit(protocol.UserTurn{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	var deniedBy string
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.ApprovalRequestEvent:
			if _, err := s.Submit(protocol.Shutdown{}); err != nil {
				t.Fatal(err)
			}
		case protocol.ToolDeniedEvent:
			deniedBy = e.By
		}
	}
	if deniedBy != "user" || bash.runs.Load() != 0 {
		t.Fatalf("denied by %q, runs %d", deniedBy, bash.runs.Load())
	}
}

// The ask tool's question is an event; the answer op comes back as the
// tool's input to its result.
func TestQuestionsTravelAsEvents(t *testing.T) {
	ask := tool.New(tool.Def[fakeIn]{
		Info: tool.Info{Name: "ask", Effect: tool.Reads, Interactive: true},
		Run: func(ctx context.Context, rt tool.Runtime, _ *fakeIn) (tool.Result, error) {
			a, err := rt.Person.Ask(ctx, rt.CallID, tool.Question{Text: "which?", Options: []protocol.Option{{Label: "a"}, {Label: "b"}}})
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Text("chose " + strings.Join(a.Chosen, ",")), nil
		},
	})
	h := newHarnessTools(t, options{attended: true}, []tool.Tool{ask},
		resp(toolCall("c1", "ask", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	var result string
	for e := range h.session.Send(t.Context(), "go") {
		switch e := e.(type) {
		case protocol.QuestionEvent:
			if e.CallID != "c1" || e.Question != "which?" || len(e.Options) != 2 {
				t.Fatalf("question = %+v", e)
			}
			if _, err := h.session.Submit(protocol.Answer{ID: e.ID, Chosen: []string{"b"}}); err != nil {
				t.Fatal(err)
			}
		case protocol.ToolResultEvent:
			result = e.Output
		}
	}
	if result != "chose b" {
		t.Fatalf("result = %q", result)
	}

	// Nobody attending: the interactive tool is not even offered.
	h = newHarnessTools(t, options{}, []tool.Tool{ask}, resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	if reqs := h.wire.requests(); len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Fatalf("unattended request offered %+v", reqs[0].Tools)
	}
}
