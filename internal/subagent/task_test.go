package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/subagent"
	"github.com/shiro-neko/shiro/internal/tool"
)

func TestExploreTaskReturnsItsReportOnItsOwnModelAndContext(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"find the loader","prompt":"Where is the config file loaded?"}`),
		call("s1", "grep", `{"pattern":"LoadConfig"}`),
		text("LoadConfig is defined at config.go:1."),
		text("It is in config.go."),
	)
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{
		ExploreModel: "small-model", ApprovalChannel: true,
		Overview: func() string { return "Workspace files:\nconfig.go" }}})
	p.write(t, "config.go", "func LoadConfig() {}\n")

	evs := p.send(t, t.Context(), "where is the config loaded?")

	calls := srv.ModelCalls()
	if len(calls) != 4 {
		t.Fatalf("model calls = %d, want 4 (parent, two subagent steps, parent)", len(calls))
	}
	parent1, child1, child2, parent2 := decode(t, calls[0]), decode(t, calls[1]), decode(t, calls[2]), decode(t, calls[3])
	if parent1.Model != parentModel || parent2.Model != parentModel {
		t.Fatalf("parent ran on %q/%q", parent1.Model, parent2.Model)
	}
	if child1.Model != "small-model" || child2.Model != "small-model" {
		t.Fatalf("explore ran on %q, want the configured subagent model", child1.Model)
	}
	// Its own context: the brief alone, under its own prompt.
	if len(child1.Messages) != 1 || !strings.Contains(string(child1.Messages[0].Content[0]), "Where is the config file loaded?") {
		t.Fatalf("the subagent's first request should hold only its brief: %+v", child1.Messages)
	}
	sys := child1.system()
	for _, want := range []string{"explore subagent", "path:line", "under 30 lines", "at most 20 steps", "Workspace files:\nconfig.go"} {
		if !strings.Contains(sys, want) {
			t.Errorf("subagent prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "You are the parent.") {
		t.Error("the subagent got the parent's prompt")
	}
	// Explore is offered exactly the parent's tools that only read and need
	// no person: no writing, running, fetching, task list, question or
	// delegation.
	wantTools := p.namesWhere(func(i *tool.Info) bool { return i.Effect == tool.Reads && !i.Interactive })
	if got := child1.toolNames(); !slices.Equal(got, wantTools) {
		t.Fatalf("explore tools = %v, want %v", got, wantTools)
	}
	for _, name := range []string{"grep", "read_file", "git_diff"} {
		if !slices.Contains(wantTools, name) {
			t.Errorf("explore lacks %s: %v", name, wantTools)
		}
	}
	for _, name := range []string{"bash", "write_file", "fetch", "todo_write", "ask", "task"} {
		if slices.Contains(wantTools, name) {
			t.Errorf("explore got %s: %v", name, wantTools)
		}
	}
	if res := child2.toolResults(t); len(res) != 1 || !strings.Contains(res[0], "config.go:1") {
		t.Fatalf("the grep result did not reach the subagent: %q", res)
	}
	if res := parent2.toolResults(t); len(res) != 1 || res[0] != "LoadConfig is defined at config.go:1." {
		t.Fatalf("the parent got %q, want the subagent's report", res)
	}

	got := subagentEvents(evs)
	phases := make([]string, len(got))
	for i, e := range got {
		phases[i] = string(e.Phase) + ":" + e.Text
		if e.ID != "p1.1" || e.CallID != "p1" || e.Kind != "explore" {
			t.Fatalf("event %+v: want id p1.1, call p1, kind explore", e)
		}
	}
	want := []string{"start:find the loader", "step:grep LoadConfig", "result:LoadConfig is defined at config.go:1.", "end:finished after 1 tool call"}
	if !slices.Equal(phases, want) {
		t.Fatalf("progress = %q, want %q", phases, want)
	}

	// Usage is kept apart: the parent's two calls, the subagent's two.
	if u := p.session.Usage(); u.InputTokens != 200 || u.OutputTokens != 20 {
		t.Fatalf("parent usage = %+v", u)
	}
	sub := p.session.SubagentUsage()
	if len(sub) != 1 || sub[0].Model != "small-model" || sub[0].Usage.InputTokens != 200 || sub[0].Usage.OutputTokens != 20 {
		t.Fatalf("subagent usage = %+v", sub)
	}
	done, _ := find[protocol.DoneEvent](evs)
	if done.Usage == nil || done.Usage.InputTokens != 200 {
		t.Fatalf("the turn's done event should count only the parent's calls: %+v", done)
	}
}

func TestReviewRunsOnTheParentsModel(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"review","prompt":"Review a.go","kind":"review"}`),
		text("[minor] a.go:1 — nothing serious"),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{ExploreModel: "small-model"}})
	p.send(t, t.Context(), "review")
	child := decode(t, srv.ModelCalls()[1])
	if child.Model != parentModel {
		t.Fatalf("review ran on %q, want the parent's model", child.Model)
	}
	if !strings.Contains(child.system(), "order of severity") {
		t.Fatalf("review prompt:\n%s", child.system())
	}
	if sub := p.session.SubagentUsage(); len(sub) != 1 || sub[0].Model != parentModel {
		t.Fatalf("subagent usage = %+v", sub)
	}
}

func TestEmptyReportSaysSo(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"look","prompt":"Look around."}`),
		text(""),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider})
	p.send(t, t.Context(), "go")
	if res := decode(t, srv.ModelCalls()[2]).toolResults(t); len(res) != 1 || res[0] != "Subagent returned no findings." {
		t.Fatalf("parent got %q", res)
	}
}

// A batch runs at once: no subagent gets its answer until all three have
// asked, so a sequential run would never finish. They then finish in
// reverse order (each answers only once the next one has ended), and the
// reports still come back in input order.
func TestBatchRunsInParallelAndJoinsInInputOrder(t *testing.T) {
	briefs := []string{"brief one", "brief two", "brief three"}
	arrived := make(chan string, len(briefs))
	all := make(chan struct{})
	ended := make([]chan struct{}, len(briefs))
	for i := range ended {
		ended[i] = make(chan struct{})
	}
	go func() {
		seen := map[string]bool{}
		for len(seen) < len(briefs) {
			seen[<-arrived] = true
		}
		close(all)
	}()
	ps := &parentScript{steps: [][]llm.StreamPart{
		finish(toolCallPart("p1", "task", `{"tasks":[
			{"description":"one","prompt":"brief one"},
			{"description":"two","prompt":"brief two"},
			{"description":"three","prompt":"brief three"}]}`)),
		finish(llm.TextDelta{Text: "done"}),
	}}
	provider := scripted{answer: func(ctx context.Context, req *llm.Request) ([]llm.StreamPart, error) {
		if !isSubagent(req) {
			return ps.next(req)
		}
		b := brief(req)
		arrived <- b
		wait := []<-chan struct{}{all}
		if i := slices.Index(briefs, b); i+1 < len(briefs) {
			wait = append(wait, ended[i+1])
		}
		for _, w := range wait {
			select {
			case <-w:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return finish(llm.TextDelta{Text: "report for " + b}), nil
	}}
	p := newParent(t, setup{provider: provider})

	// The deadline only turns a sequential run's deadlock into a failure.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var ends []string
	for e := range p.session.Send(ctx, "go") {
		if s, ok := e.(protocol.SubagentEvent); ok && s.Phase == protocol.SubagentEnd {
			ends = append(ends, s.ID)
			n, _ := strconv.Atoi(strings.TrimPrefix(s.ID, "p1."))
			close(ended[n-1])
		}
	}

	res := ps.lastToolResult(t)
	want := "## one\nreport for brief one\n\n## two\nreport for brief two\n\n## three\nreport for brief three"
	if res.IsError || res.Output != want {
		t.Fatalf("joined reports =\n%s\nwant\n%s", res.Output, want)
	}
	if !slices.Equal(ends, []string{"p1.3", "p1.2", "p1.1"}) {
		t.Fatalf("subagents ended in order %v, want the reverse of the input", ends)
	}
}

func TestFailedTaskIsReportedInline(t *testing.T) {
	ps := &parentScript{steps: [][]llm.StreamPart{
		finish(toolCallPart("p1", "task", `{"tasks":[{"description":"good","prompt":"fine"},{"description":"bad","prompt":"explode"}]}`)),
		finish(llm.TextDelta{Text: "done"}),
	}}
	provider := scripted{answer: func(_ context.Context, req *llm.Request) ([]llm.StreamPart, error) {
		if !isSubagent(req) {
			return ps.next(req)
		}
		if brief(req) == "explode" {
			return nil, errors.New("the model is overloaded")
		}
		return finish(llm.TextDelta{Text: "all good"}), nil
	}}
	p := newParent(t, setup{provider: provider})
	evs := p.send(t, t.Context(), "go")

	res := ps.lastToolResult(t)
	want := "## good\nall good\n\n## bad\nSubagent failed: the model is overloaded"
	if res.IsError || res.Output != want {
		t.Fatalf("result = %q (error %v), want %q", res.Output, res.IsError, want)
	}
	var errs []protocol.SubagentEvent
	for _, e := range subagentEvents(evs) {
		if e.Phase == protocol.SubagentError {
			errs = append(errs, e)
		}
	}
	if len(errs) != 1 || errs[0].ID != "p1.2" || errs[0].Text != "the model is overloaded" {
		t.Fatalf("error events = %+v", errs)
	}
}

func TestSingleFailedTaskFailsTheCall(t *testing.T) {
	ps := &parentScript{steps: [][]llm.StreamPart{
		finish(toolCallPart("p1", "task", `{"description":"bad","prompt":"explode"}`)),
		finish(llm.TextDelta{Text: "done"}),
	}}
	provider := scripted{answer: func(_ context.Context, req *llm.Request) ([]llm.StreamPart, error) {
		if !isSubagent(req) {
			return ps.next(req)
		}
		return nil, errors.New("the model is overloaded")
	}}
	p := newParent(t, setup{provider: provider})
	p.send(t, t.Context(), "go")
	if res := ps.lastToolResult(t); !res.IsError || res.Output != "Subagent failed: the model is overloaded" {
		t.Fatalf("result = %+v", res)
	}
}

func TestStepCapStopsAtTwentyModelCalls(t *testing.T) {
	ps := &parentScript{steps: [][]llm.StreamPart{
		finish(toolCallPart("p1", "task", `{"description":"endless","prompt":"never stop"}`)),
		finish(llm.TextDelta{Text: "done"}),
	}}
	var childCalls int
	provider := scripted{answer: func(_ context.Context, req *llm.Request) ([]llm.StreamPart, error) {
		if !isSubagent(req) {
			return ps.next(req)
		}
		childCalls++
		// A different pattern each time, so the repeat guard stays out of it.
		input, _ := json.Marshal(map[string]string{"pattern": strings.Repeat("x", childCalls)})
		return finish(llm.TextDelta{Text: "still looking"}, toolCallPart("s", "glob", string(input))), nil
	}}
	p := newParent(t, setup{provider: provider})
	p.send(t, t.Context(), "go")

	if childCalls != subagent.MaxSteps {
		t.Fatalf("the subagent made %d model calls, want the cap of %d", childCalls, subagent.MaxSteps)
	}
	res := ps.lastToolResult(t)
	if res.IsError || !strings.HasPrefix(res.Output, "still looking") || !strings.Contains(res.Output, "limit of 20 steps") {
		t.Fatalf("result = %q", res.Output)
	}
}

// Cancelling the parent's turn stops every subagent of a batch, and the
// call ends as interrupted.
func TestCancellingTheTurnStopsTheSubagents(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	waiting := make(chan struct{}, 2)
	ps := &parentScript{steps: [][]llm.StreamPart{
		finish(toolCallPart("p1", "task", `{"tasks":[{"description":"a","prompt":"a"},{"description":"b","prompt":"b"}]}`)),
	}}
	provider := scripted{answer: func(ctx context.Context, req *llm.Request) ([]llm.StreamPart, error) {
		if !isSubagent(req) {
			return ps.next(req)
		}
		waiting <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	go func() {
		<-waiting
		<-waiting
		cancel()
	}()
	p := newParent(t, setup{provider: provider})
	evs := p.send(t, ctx, "go")

	e, ok := find[protocol.ToolErrorEvent](evs)
	if !ok || e.Name != "task" {
		t.Fatalf("want the task call to end in an error, got %+v", evs)
	}
	hist := p.session.History()
	last := hist[len(hist)-1]
	if last.Role != llm.RoleTool {
		t.Fatalf("the history must end with the task's result, got %+v", last)
	}
}

// Bad calls are refused before any subagent starts, with a sentence the
// model can act on: the schema's refusals name the member, the checks say
// what to send instead.
func TestBadInputIsExplained(t *testing.T) {
	cases := map[string]string{
		`{}`: "give description and prompt for one task, or tasks (1 to 8 of them) for a batch",
		`{"description":"a","prompt":"b","tasks":[{"description":"c","prompt":"d"}]}`: "not both",
		`{"tasks":[]}`:                                   "tasks: minItems: array length 0 is less than 1",
		`{"description":"a"}`:                            "prompt is empty",
		`{"prompt":"b"}`:                                 "description is empty",
		`{"description":" ","prompt":"b"}`:               "description is empty",
		`{"description":"a","prompt":"b","kind":"boss"}`: "kind: enum: boss does not equal any of: [explore review]",
		`{"task":{"description":"a","prompt":"b"}}`:      `unexpected additional properties ["task"]`,
		`{"tasks":[{"description":"a","prompt":"b"},{"description":"a","prompt":"b","kind":"review"}]}`:              "tasks[1]: kind applies to the whole batch: put it next to tasks",
		`{"tasks":[{"description":"a","prompt":""}]}`:                                                                "tasks[0]: prompt is empty",
		`{"tasks":[{"description":"a"}]}`:                                                                            `missing properties: ["prompt"]`,
		`{"tasks":[` + strings.Repeat(`{"description":"a","prompt":"b"},`, 8) + `{"description":"a","prompt":"b"}]}`: "tasks: maxItems: array length 9 is greater than 8",
		`{"description":"a","prompt":"b","description":"c"}`:                                                         "duplicate key",
	}
	for input, want := range cases {
		ps := &parentScript{steps: [][]llm.StreamPart{
			finish(toolCallPart("p1", "task", input)),
			finish(llm.TextDelta{Text: "done"}),
		}}
		provider := scripted{answer: func(_ context.Context, req *llm.Request) ([]llm.StreamPart, error) {
			if isSubagent(req) {
				t.Errorf("%s: a subagent started", input)
				return nil, errors.New("no subagent expected")
			}
			return ps.next(req)
		}}
		p := newParent(t, setup{provider: provider})
		evs := p.send(t, t.Context(), "go")
		if res := ps.lastToolResult(t); !res.IsError || !strings.HasPrefix(res.Output, "invalid arguments: ") || !strings.Contains(res.Output, want) {
			t.Errorf("%s: result %q, want an input error containing %q", input, res.Output, want)
		}
		if got := subagentEvents(evs); len(got) != 0 {
			t.Errorf("%s: subagent events %+v", input, got)
		}
	}
}

// subagentStop sends a child back to work once, as a SubagentStop hook
// would; it keeps the sessions whose endings it heard.
type subagentStop struct {
	agent.NoHooks
	mu    sync.Mutex
	heard []string
}

func (s *subagentStop) Ended(_ context.Context, e agent.TurnEnd) agent.Ending {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.heard = append(s.heard, fmt.Sprintf("%s:%d", e.SessionID, e.Continued))
	if e.Continued == 0 {
		return agent.Ending{Continue: "Check the tests too before you report."}
	}
	return agent.Ending{}
}

// The parent's SubagentHooks take part in its children's turns: one may
// send a child back to work, and the parent gets the report the child
// wrote after it.
func TestSubagentHooksMaySendTheChildBackToWork(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"look","prompt":"Look around."}`),
		text("first report"),
		text("report after checking the tests"),
		text("ok"),
	)
	stop := &subagentStop{}
	p := newParent(t, setup{provider: provider, subagentHooks: stop})
	p.send(t, t.Context(), "go")
	calls := srv.ModelCalls()
	if len(calls) != 4 {
		t.Fatalf("model calls = %d, want 4 (parent, child, child again, parent)", len(calls))
	}
	again := decode(t, calls[2])
	last := again.Messages[len(again.Messages)-1]
	if last.Role != "user" || !strings.Contains(string(last.Content[0]), "Check the tests too") {
		t.Fatalf("the child's second request ends with %+v", last)
	}
	if res := decode(t, calls[3]).toolResults(t); len(res) != 1 || res[0] != "report after checking the tests" {
		t.Fatalf("parent got %q", res)
	}
	if want := []string{"parent/explore:0", "parent/explore:1"}; !slices.Equal(stop.heard, want) {
		t.Fatalf("the hook heard %q, want %q (the parent's own turns are not its)", stop.heard, want)
	}
}
