package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// maxParallel bounds how many subagents of one call run at once.
const maxParallel = 8

// noFindings replaces an empty report, so the parent never reads silence
// as an answer.
const noFindings = "Subagent returned no findings."

// outcome is one subagent's report, or why it has none.
type outcome struct {
	report string
	err    error
}

// Delegate implements agent.Delegator: it runs each brief in its own child
// session and returns the report, or the reports of a batch joined in
// input order. A failed brief of a batch is reported in its place; a
// failed single brief fails the call.
func (t *Tool) Delegate(ctx context.Context, call tools.Call, p agent.Parent) (string, error) {
	req, err := parseInput(call.Input)
	if err != nil {
		return "", err
	}
	if req.Kind == Worker {
		// Read-only first: a plan agent asking for a worker is told why,
		// even in a session that could otherwise run one.
		if p.ReadOnly {
			return "", userError(errReadOnlyParent)
		}
		if !t.cfg.ApprovalChannel {
			return "", userError(errNoApprovalChannel)
		}
	}
	if call.Env == nil {
		return "", errors.New("the task tool needs a workspace, and this call has none")
	}

	outcomes := make([]outcome, len(req.Briefs))
	slots := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for i, b := range req.Briefs {
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				outcomes[i] = outcome{err: ctx.Err()}
				return
			}
			defer func() { <-slots }()
			outcomes[i] = t.runOne(ctx, call, p, req.Kind, i, b)
		})
	}
	wg.Wait()

	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !req.Batch {
		if o := outcomes[0]; o.err != nil {
			return "", &failedError{err: o.err}
		}
		return outcomes[0].report, nil
	}
	return joinReports(req.Briefs, outcomes), nil
}

// userError is an error whose text is a sentence written for the model,
// which Go's lint rule for library error strings does not fit.
type userError string

func (e userError) Error() string { return string(e) }

// failedError is a single brief's failure, as the model reads it.
type failedError struct{ err error }

func (e *failedError) Error() string { return "Subagent failed: " + e.err.Error() }
func (e *failedError) Unwrap() error { return e.err }

// joinReports heads each report with its description, in input order.
func joinReports(briefs []brief, outcomes []outcome) string {
	var b strings.Builder
	for i, o := range outcomes {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + oneLine(briefs[i].Description) + "\n")
		if o.err != nil {
			b.WriteString("Subagent failed: " + o.err.Error())
			continue
		}
		b.WriteString(o.report)
	}
	return b.String()
}

// runOne runs one brief in a child session and returns its report. It
// reports progress as SubagentEvents through the parent and never panics
// the batch: a crash becomes this brief's failure.
func (t *Tool) runOne(ctx context.Context, call tools.Call, p agent.Parent, kind Kind, index int, b brief) (o outcome) {
	progress := reporter{p: p, id: fmt.Sprintf("%s.%d", call.ID, index+1), callID: call.ID, kind: kind}
	progress.emit(agent.SubagentStart, oneLine(b.Description))
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: fmt.Errorf("the subagent crashed: %v", r)}
			progress.emit(agent.SubagentError, o.err.Error())
		}
	}()

	model := p.Model
	if kind == Explore && t.cfg.ExploreModel != "" {
		model = t.cfg.ExploreModel
	}
	filter := p.Filter
	filter.Allow = allowedTools(kind, p.Tools)
	filter.ReadOnly = !kind.writes()
	work := &workCatcher{}
	child, err := agent.New(agent.Config{
		Provider:  p.Provider,
		Model:     model,
		SessionID: p.SessionID + "/" + string(kind),
		Env:       call.Env,
		Tools:     p.Tools,
		Gate:      p.Gate,
		Prompter:  prompter{kind: kind, root: call.Env.Root, platform: t.cfg.Platform, overview: t.cfg.Overview},
		Variant: agent.Variant{Name: string(kind) + " subagent", Thinking: kind.thinking(),
			MaxSteps: MaxSteps, ReadOnly: !kind.writes()},
		Filter:            filter,
		CacheSystemPrefix: p.CacheSystemPrefix,
		Observers:         []agent.TurnObserver{work},
		Subagent:          string(kind),
	})
	if err != nil {
		progress.emit(agent.SubagentError, err.Error())
		return outcome{err: err}
	}

	var failure string
	calls := 0
	for e := range child.Send(ctx, b.Prompt) {
		switch e := e.(type) {
		case agent.ToolCallEvent:
			calls++
			progress.emit(agent.SubagentStep, stepText(p.Tools, e))
		case agent.ErrorEvent:
			failure = e.Error
		}
	}
	p.AddUsage(model, child.Usage())
	p.NoteWork(work.summary.ToolsCalled, work.summary.FilesWritten)

	switch {
	case ctx.Err() != nil:
		progress.emit(agent.SubagentError, "cancelled")
		return outcome{err: ctx.Err()}
	case failure != "":
		progress.emit(agent.SubagentError, failure)
		return outcome{err: errors.New(failure)}
	}
	report := finalReport(child.History())
	progress.emit(agent.SubagentResult, firstLine(report))
	progress.emit(agent.SubagentEnd, fmt.Sprintf("finished after %d tool %s", calls, plural(calls, "call", "calls")))
	return outcome{report: report}
}

// finalReport is the subagent's last answer. When the history ends with
// tool results, the step cap stopped it mid-work, and the report says so.
func finalReport(history []llm.Message) string {
	var last llm.Message
	for _, m := range history {
		if m.Role == llm.RoleAssistant {
			last = m
		}
	}
	report := strings.TrimSpace(last.PlainText())
	if report == "" {
		report = noFindings
	}
	if n := len(history); n > 0 && history[n-1].Role == llm.RoleTool {
		report += fmt.Sprintf("\n\n(The subagent reached its limit of %d steps before it finished, so this report may be incomplete.)", MaxSteps)
	}
	return report
}

// stepText is a step's line in the progress panel: the tool and its key
// argument (a path, a pattern, a command), which are exactly what
// permission rules match, so the tool's own Subjects name them.
func stepText(reg *tools.Registry, e agent.ToolCallEvent) string {
	text := e.Name
	if t, ok := reg.Get(e.Name); ok {
		if subjects := t.Meta().Subjects; subjects != nil {
			if s := subjects(e.Input); len(s) > 0 {
				text += " " + strings.Join(s, " ")
			}
		}
	}
	return cut(oneLine(text), 160)
}

// reporter sends one subagent's progress into the parent's stream.
type reporter struct {
	p      agent.Parent
	id     string
	callID string
	kind   Kind
}

func (r reporter) emit(phase agent.SubagentPhase, text string) {
	if r.p.Emit == nil {
		return
	}
	r.p.Emit(agent.SubagentEvent{ID: r.id, CallID: r.callID, Kind: string(r.kind), Phase: phase, Text: text})
}

// workCatcher keeps the child's turn summary, so the parent's summary can
// include what the child called and wrote.
type workCatcher struct{ summary agent.TurnSummary }

// AfterTurn implements agent.TurnObserver.
func (w *workCatcher) AfterTurn(_ context.Context, s agent.TurnSummary) []string {
	w.summary = s
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return cut(strings.TrimSpace(line), 200)
}

// oneLine folds whitespace, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cut(s string, limit int) string {
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
