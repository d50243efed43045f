package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// maxParallel bounds how many subagents of one call run at once.
const maxParallel = 8

// noFindings replaces an empty report, so the parent never reads silence
// as an answer.
const noFindings = "Subagent returned no findings."

// Error texts the model sees when it asks for a kind it may not have.
const (
	errNoApprovalChannel = "The worker kind needs an approval channel, which this session has not provided."
	errReadOnlyParent    = "This agent is read-only, so it may delegate only explore and review tasks, not worker."
)

// outcome is one subagent's report, or why it has none.
type outcome struct {
	report string
	err    error
}

// Delegate implements agent.Delegator: it runs each brief in its own child
// session and returns the report, or the reports of a batch joined in
// input order. A failed brief of a batch is reported in its place; a
// failed single brief fails the call.
func (c *call) Delegate(ctx context.Context, rt tool.Runtime, p agent.Parent) (tool.Result, error) {
	req := c.req
	if c.t.writes(req.Kind) {
		// Read-only first: a plan agent asking for a worker is told why,
		// even in a session that could otherwise run one.
		if p.ReadOnly {
			return tool.Result{}, tool.Failf("%s", kindError(errReadOnlyParent, req.Kind))
		}
		if !c.t.cfg.ApprovalChannel || !attended(p) {
			return tool.Result{}, tool.Failf("%s", kindError(errNoApprovalChannel, req.Kind))
		}
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
			outcomes[i] = c.t.runOne(ctx, rt.CallID, p, req.Kind, i, b)
		})
	}
	wg.Wait()

	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if !req.Batch {
		if o := outcomes[0]; o.err != nil {
			return tool.Result{}, &failedError{err: o.err}
		}
		return tool.Text(outcomes[0].report), nil
	}
	return tool.Text(joinReports(req.Briefs, outcomes)), nil
}

// kindError words a worker's refusal for a file-defined agent that may
// write, which is refused for the same reasons.
func kindError(msg string, k Kind) string {
	switch {
	case k == Worker:
		return msg
	case msg == errReadOnlyParent:
		return fmt.Sprintf("This agent is read-only, so it may not delegate to %s, which may change files.", k)
	}
	return fmt.Sprintf("The %s kind may change files, so it needs an approval channel, which this session has not provided.", k)
}

// attended reports whether a person attends the parent session: its
// approval desk is there to lend, and its filter does not withhold what
// needs a person.
func attended(p agent.Parent) bool { return p.Broker != nil && !p.Filter.Unattended }

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
func (t *Tool) runOne(ctx context.Context, callID string, p agent.Parent, kind Kind, index int, b brief) (o outcome) {
	progress := reporter{p: p, id: fmt.Sprintf("%s.%d", callID, index+1), callID: callID, kind: kind}
	progress.emit(protocol.SubagentStart, oneLine(b.Description))
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: fmt.Errorf("the subagent crashed: %v", r)}
			progress.emit(protocol.SubagentError, o.err.Error())
		}
	}()

	prof, ok := t.profile(kind, p)
	if !ok {
		err := fmt.Errorf("unknown kind %q", kind)
		progress.emit(protocol.SubagentError, err.Error())
		return outcome{err: err}
	}
	provider, model := p.Provider, prof.model
	if t.cfg.ProviderFor != nil {
		other, id, err := t.cfg.ProviderFor(model)
		if err != nil {
			progress.emit(protocol.SubagentError, err.Error())
			return outcome{err: err}
		}
		if other != nil {
			provider = other
		}
		model = id
	}
	work := &workCatcher{}
	child, err := agent.Start(ctx, agent.Config{
		Provider:  provider,
		Model:     model,
		SessionID: p.SessionID + "/" + string(kind),
		Cwd:       p.Cwd,
		Tools:     p.Tools,
		Gate:      p.Gate,
		Prompter:  prompter{kind: kind, root: p.Cwd, platform: t.cfg.Platform, overview: t.cfg.Overview},
		Variant: agent.Variant{Name: string(kind) + " subagent", Thinking: prof.thinking,
			MaxSteps: MaxSteps, ReadOnly: !prof.writes, Appendix: prof.appendix},
		Filter:            prof.filter,
		Attended:          attended(p),
		CacheSystemPrefix: p.CacheSystemPrefix,
		Hooks:             agent.Chain(p.Hooks, work),
		Subagent:          string(kind),
		Broker:            p.Broker,
		Spend:             p.Spend,
		Mode:              p.Mode,
	})
	if err != nil {
		progress.emit(protocol.SubagentError, err.Error())
		return outcome{err: err}
	}
	defer stop(child)

	var failure string
	calls := 0
	for e := range child.Send(ctx, b.Prompt) {
		switch e := e.(type) {
		case protocol.ToolCallEvent:
			calls++
			progress.emit(protocol.SubagentStep, stepText(e))
		case protocol.ErrorEvent:
			failure = e.Error
		}
	}
	p.AddUsage(model, child.Usage())
	p.NoteWork(work.summary.ToolsCalled, work.summary.FilesWritten)

	switch {
	case ctx.Err() != nil:
		progress.emit(protocol.SubagentError, "cancelled")
		return outcome{err: ctx.Err()}
	case failure != "":
		progress.emit(protocol.SubagentError, failure)
		return outcome{err: errors.New(failure)}
	}
	report := finalReport(child.History())
	progress.emit(protocol.SubagentResult, firstLine(report))
	progress.emit(protocol.SubagentEnd, fmt.Sprintf("finished after %d tool %s", calls, prose.Plural(calls, "call", "calls")))
	return outcome{report: report}
}

// door is a session as its clients see it: ops in, events out.
type door interface {
	Submit(op protocol.Op) (string, error)
	Events() <-chan protocol.Event
}

// stop shuts a child session down and reads its stream to the end, so its
// goroutines are gone when the call returns.
func stop(child door) {
	_, _ = child.Submit(protocol.Shutdown{})
	for range child.Events() {
	}
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

// stepText is a step's line in the progress panel: the tool and its call's
// title (a path, a pattern, a command), as the tool itself puts it.
func stepText(e protocol.ToolCallEvent) string {
	text := e.Name
	if e.Title != "" {
		text += " " + e.Title
	}
	return prose.Cut(oneLine(text), 160)
}

// reporter sends one subagent's progress into the parent's stream.
type reporter struct {
	p      agent.Parent
	id     string
	callID string
	kind   Kind
}

func (r reporter) emit(phase protocol.SubagentPhase, text string) {
	if r.p.Emit == nil {
		return
	}
	r.p.Emit(protocol.SubagentEvent{ID: r.id, CallID: r.callID, Kind: string(r.kind), Phase: phase, Text: text})
}

// workCatcher keeps the child's turn summary, so the parent's summary can
// include what the child called and wrote. The child's turn writes it
// before its done event, which the task reads before the summary. It comes
// after the parent's hooks, which may send the child back to work, so it
// keeps the turn's last ending.
type workCatcher struct {
	agent.NoHooks
	summary agent.TurnSummary
}

// Ended implements agent.TurnHooks.
func (w *workCatcher) Ended(_ context.Context, e agent.TurnEnd) agent.Ending {
	w.summary = e.TurnSummary
	return agent.Ending{}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return prose.Cut(strings.TrimSpace(line), 200)
}

// oneLine folds whitespace, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
