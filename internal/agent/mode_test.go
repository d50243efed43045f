package agent_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// fallbackRules decides every call by the tool's own default (reading
// is allowed, a change asks): no rule of anyone's decided.
type fallbackRules struct{}

func (fallbackRules) Check(q permission.Query) permission.Result {
	d := q.Default
	if d == "" {
		d = permission.Ask
	}
	return permission.Result{Decision: d, Tool: q.Tool, Source: permission.SourceFallback, Key: q.Tool}
}
func (fallbackRules) Grant(permission.Query) []string        { return nil }
func (fallbackRules) GrantPreview(permission.Query) []string { return nil }

func editTool() *fakeTool { return &fakeTool{name: "edit", effect: tool.Writes} }

// Accept-edits approves an edit inside the workspace that would have
// asked, and nothing else: a command, an edit outside the workspace and
// an ask rule someone wrote still reach the person.
func TestAcceptEditsApprovesOnlyEditsInsideTheWorkspace(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		name  string
		rules agent.Rules
		tool  string
		input string
		asked bool
	}{
		{"edit inside", fallbackRules{}, "edit", `{"path":"src/a.go"}`, false},
		{"edit by absolute path inside", fallbackRules{}, "edit", `{"path":"` + filepath.Join(root, "b.go") + `"}`, false},
		{"edit outside", fallbackRules{}, "edit", `{"path":"../elsewhere/a.go"}`, true},
		{"edit at an absolute path outside", fallbackRules{}, "edit", `{"path":"/etc/hosts"}`, true},
		{"command", fallbackRules{}, "bash", `{"command":"go test ./..."}`, true},
		{"an ask rule", askAll(), "edit", `{"path":"src/a.go"}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tools := []*fakeTool{editTool(), {name: "bash", effect: tool.Runs}}
			h := newHarness(t, options{gate: &agent.Gate{Rules: c.rules, Cwd: root}, attended: true, mode: permission.ModeAcceptEdits}, tools,
				resp(toolCall("c1", c.tool, c.input)), resp(llm.TextDelta{Text: "done"}))
			h.answers.answers = []protocol.Decision{protocol.Yes}
			h.collect(t.Context(), "go")
			if asked := len(h.answers.seen()) == 1; asked != c.asked {
				t.Fatalf("asked = %v, want %v", asked, c.asked)
			}
			ran := tools[0].runs.Load() + tools[1].runs.Load()
			if ran != 1 {
				t.Fatalf("runs = %d, want 1 (approved either way)", ran)
			}
		})
	}
}

// Accept-edits lifts an ask, never a refusal: a deny rule still denies.
func TestAcceptEditsKeepsDenyRules(t *testing.T) {
	deny := rulesFunc(func(permission.Query) permission.Decision { return permission.Deny })
	edit := editTool()
	h := newHarness(t, options{gate: &agent.Gate{Rules: deny, Cwd: t.TempDir()}, attended: true, mode: permission.ModeAcceptEdits},
		[]*fakeTool{edit}, resp(toolCall("c1", "edit", `{"path":"a.go"}`)), resp(llm.TextDelta{Text: "done"}))
	if d := denied(t, h.collect(t.Context(), "go")); d.By != "rule" || edit.runs.Load() != 0 {
		t.Fatalf("denied = %+v, runs = %d", d, edit.runs.Load())
	}
}

// Plan mode refuses every call that changes something, even one the rules
// allow and under --yolo, telling the model to present its plan; reading
// goes on. The request's tools and system prompt stay byte for byte those
// of the default mode, so the prompt cache still hits; the mode travels
// in the uncached tail.
func TestPlanModeRefusesChangesAndKeepsTheToolList(t *testing.T) {
	edit, bash, read := editTool(), &fakeTool{name: "bash", effect: tool.Runs}, &fakeTool{name: "read", effect: tool.Reads}
	h := newHarnessTools(t, options{gate: &agent.Gate{Rules: allowAll(), Yolo: true}, attended: true},
		[]tool.Tool{edit.build(), bash.build(), read.build(), agent.PlanTool()},
		resp(llm.TextDelta{Text: "hello"}),
		resp(toolCall("c1", "edit", `{"path":"a.go"}`), toolCall("c2", "bash", `{"command":"make"}`), toolCall("c3", "read", `{}`)),
		resp(llm.TextDelta{Text: "I will present a plan"}))
	h.collect(t.Context(), "hi")
	if _, err := h.session.Submit(protocol.Configure{Mode: "plan"}); err != nil {
		t.Fatal(err)
	}
	evs := h.collect(t.Context(), "change it")
	var refused []string
	for _, e := range evs {
		if d, ok := e.(protocol.ToolDeniedEvent); ok {
			refused = append(refused, d.Name)
			if d.By != "plan-mode" || !strings.Contains(d.Reason, agent.PlanToolName) {
				t.Fatalf("denied = %+v", d)
			}
		}
	}
	if !slices.Equal(refused, []string{"edit", "bash"}) || edit.runs.Load()+bash.runs.Load() != 0 || read.runs.Load() != 1 {
		t.Fatalf("refused %v; runs edit=%d bash=%d read=%d", refused, edit.runs.Load(), bash.runs.Load(), read.runs.Load())
	}
	reqs := h.wire.requests()
	before, during := reqs[0], reqs[1]
	if !slices.EqualFunc(before.Tools, during.Tools, func(a, b llm.ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && string(a.Schema) == string(b.Schema)
	}) || before.System[0].Text != during.System[0].Text {
		t.Fatal("switching to plan mode changed the cached part of the request")
	}
	if strings.Contains(before.Tail, "Plan mode is on") || !strings.Contains(during.Tail, "Plan mode is on") {
		t.Fatalf("tails: before %q, during %q", before.Tail, during.Tail)
	}
}

// planTurn runs one turn, answering the plan's question with answer and
// approving nothing else; it returns the turn's events, session events
// included.
func planTurn(t *testing.T, h *harness, prompt string, answer protocol.Answer) []protocol.Event {
	t.Helper()
	var out []protocol.Event
	for e := range h.session.Send(t.Context(), prompt) {
		switch e := e.(type) {
		case protocol.QuestionEvent:
			answer.ID = e.ID
			if _, err := h.session.Submit(answer); err != nil {
				t.Fatal(err)
			}
		case protocol.ApprovalRequestEvent:
			_, _ = h.session.Submit(protocol.Approval{ID: e.ID, Decision: h.answers.next(e)})
		}
		out = append(out, e)
	}
	return out
}

const thePlan = "1. Change a.go\n2. Run the tests"

// The plan flow at the agent: in plan mode the edit is refused, the plan
// is put to the person, and once approved with accept-edits the same turn
// goes on and the edit runs without another question.
func TestApprovedPlanGoesOnInTheSameTurn(t *testing.T) {
	edit := editTool()
	h := newHarnessTools(t, options{gate: &agent.Gate{Rules: fallbackRules{}, Cwd: t.TempDir()}, attended: true, mode: permission.ModePlan},
		[]tool.Tool{edit.build(), agent.PlanTool()},
		resp(toolCall("c1", "edit", `{"path":"a.go"}`)),
		resp(toolCall("c2", agent.PlanToolName, `{"plan":"`+strings.ReplaceAll(thePlan, "\n", `\n`)+`"}`)),
		resp(toolCall("c3", "edit", `{"path":"a.go"}`)),
		resp(llm.TextDelta{Text: "done"}))
	evs := planTurn(t, h, "fix a.go", protocol.Answer{Chosen: []string{protocol.PlanAcceptEdits}})

	q, ok := find[protocol.QuestionEvent](evs)
	if !ok || q.Plan != thePlan || len(q.Options) != 3 || q.Options[1].Label != protocol.PlanAcceptEdits {
		t.Fatalf("plan question = %+v", q)
	}
	if edit.runs.Load() != 1 || len(h.answers.seen()) != 0 {
		t.Fatalf("edit runs = %d, approvals asked = %d; want the approved edit to run unasked", edit.runs.Load(), len(h.answers.seen()))
	}
	var modes []string
	dones := 0
	for _, e := range evs {
		switch e := e.(type) {
		case protocol.SessionEvent:
			modes = append(modes, e.Mode)
		case protocol.DoneEvent:
			dones++
		}
	}
	// The session's opening event says plan; the approval's says the new mode.
	if !slices.Equal(modes, []string{"plan", "accept-edits"}) || dones != 1 {
		t.Fatalf("mode changes %v, turns %d", modes, dones)
	}
	reqs := h.wire.requests()
	result := toolResult(t, reqs[2].Messages, "c2")
	if !strings.Contains(result, "approved your plan") || !strings.Contains(result, "accept-edits") || !strings.HasSuffix(result, thePlan) {
		t.Fatalf("the model read %q", result)
	}
	if plan, ok := agent.LastApprovedPlan(h.session.History()); !ok || plan != thePlan {
		t.Fatalf("last approved plan = %q, %v", plan, ok)
	}
}

// An edited plan is what the model gets and what the session keeps; a
// rejection with feedback keeps plan mode on.
func TestEditedAndRejectedPlans(t *testing.T) {
	plan := resp(toolCall("p", agent.PlanToolName, `{"plan":"do X"}`))
	cases := []struct {
		name     string
		answer   protocol.Answer
		want     string
		mode     string
		approved string
	}{
		{"edited", protocol.Answer{Chosen: []string{protocol.PlanApprove}, Text: "do Y instead"}, "edited your plan", "default", "do Y instead"},
		{"rejected", protocol.Answer{Chosen: []string{protocol.PlanKeepPlanning}, Text: "also cover Z"}, "also cover Z", "plan", ""},
		{"typed", protocol.Answer{Text: "what about Z?"}, "what about Z?", "plan", ""},
		{"dismissed", protocol.Answer{Dismissed: true}, "without approving", "plan", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarnessTools(t, options{attended: true, mode: permission.ModePlan}, []tool.Tool{agent.PlanTool()},
				plan, resp(llm.TextDelta{Text: "ok"}))
			planTurn(t, h, "go", c.answer)
			if got := toolResult(t, h.session.History(), "p"); !strings.Contains(got, c.want) {
				t.Fatalf("result %q lacks %q", got, c.want)
			}
			if got := h.session.Mode().String(); got != c.mode {
				t.Fatalf("mode = %s, want %s", got, c.mode)
			}
			if got, _ := agent.LastApprovedPlan(h.session.History()); got != c.approved {
				t.Fatalf("kept plan = %q, want %q", got, c.approved)
			}
		})
	}
}

// With nobody to approve, the plan stays unapproved, plan mode stays on,
// and the turn ends with the plan as its answer, without another model
// call.
func TestUnattendedPlanEndsTheTurnWithThePlan(t *testing.T) {
	h := newHarnessTools(t, options{mode: permission.ModePlan}, []tool.Tool{agent.PlanTool()},
		resp(toolCall("p", agent.PlanToolName, `{"plan":"`+strings.ReplaceAll(thePlan, "\n", `\n`)+`"}`)))
	evs := h.collect(t.Context(), "plan it")
	if n := len(h.wire.requests()); n != 1 {
		t.Fatalf("model calls = %d, want 1", n)
	}
	if !strings.Contains(toolResult(t, h.session.History(), "p"), "Not approved") {
		t.Fatal("the model was not told the plan is unapproved")
	}
	var text strings.Builder
	for _, e := range evs {
		if te, ok := e.(protocol.TextEvent); ok {
			text.WriteString(te.Text)
		}
	}
	hist := h.session.History()
	last := hist[len(hist)-1]
	if text.String() != thePlan || last.Role != llm.RoleAssistant || last.PlainText() != thePlan || h.session.Mode() != permission.ModePlan {
		t.Fatalf("answer %q, last message %+v, mode %s", text.String(), last, h.session.Mode())
	}
}

// Outside plan mode the tool only says there is nothing to approve.
func TestPlanToolOutsidePlanMode(t *testing.T) {
	h := newHarnessTools(t, options{attended: true}, []tool.Tool{agent.PlanTool()},
		resp(toolCall("p", agent.PlanToolName, `{"plan":"x"}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	if _, asked := find[protocol.QuestionEvent](evs); asked {
		t.Fatal("a plan was put to the person outside plan mode")
	}
	if got := toolResult(t, h.session.History(), "p"); !strings.Contains(got, "Plan mode is off") {
		t.Fatalf("result = %q", got)
	}
}

// A mode named wrongly is refused with the names to use; Claude Code's
// spelling is taken, and a mode change applies during a turn at once.
func TestConfigureMode(t *testing.T) {
	h := newHarness(t, options{}, nil, replay.Response{})
	if _, err := h.session.Submit(protocol.Configure{Mode: "bypassPermissions"}); err == nil || !strings.Contains(err.Error(), "--yolo") {
		t.Fatalf("err = %v", err)
	}
	if _, err := h.session.Submit(protocol.Configure{Mode: "acceptEdits"}); err != nil || h.session.Mode() != permission.ModeAcceptEdits {
		t.Fatalf("err = %v, mode %s", err, h.session.Mode())
	}
}

func toolResult(t *testing.T, msgs []llm.Message, callID string) string {
	t.Helper()
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok && r.CallID == callID {
				return r.Output
			}
		}
	}
	t.Fatalf("no result for %s", callID)
	return ""
}
