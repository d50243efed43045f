package headless

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// printer renders events for one of the output formats, and follows them
// for the run's result. The event loop
// and the input goroutine both print, so it is locked.
type printer struct {
	opts Options
	mu   sync.Mutex
	// midLine is true when assistant text was printed without a newline.
	midLine bool
	// holdAnswer keeps the answer off stdout while the run goes: the json
	// format prints it in its result, and under --output-schema only the
	// answer that validated is printed, at the end.
	holdAnswer bool
	tally      tally
}

func newPrinter(opts Options) *printer {
	return &printer{opts: opts, holdAnswer: opts.Format == FormatJSON || opts.Schema != nil, tally: tally{start: time.Now()}}
}

func (p *printer) print(e protocol.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tally.see(e)
	if p.opts.Format == FormatStreamJSON {
		b, err := protocol.Marshal(e)
		if err != nil {
			b, _ = protocol.Marshal(protocol.ErrorEvent{Error: err.Error()})
		}
		fmt.Fprintf(p.opts.Out, "%s\n", b)
		if r, ok := e.(protocol.SandboxRefusedEvent); ok {
			// Whoever reads only stderr learns it too, as the text mode says it.
			fmt.Fprintln(p.opts.Err, refusedLine(r))
		}
		return
	}
	p.text(e)
}

// refusedLine says what the sandbox refused a call and how to allow it.
func refusedLine(r protocol.SandboxRefusedEvent) string {
	return fmt.Sprintf("[sandbox] %s was refused %s; to allow it: %s", r.Name, r.Refusal, r.Allow)
}

// fail reports an error that happened outside a turn.
func (p *printer) fail(msg string) { p.print(protocol.ErrorEvent{Error: msg}) }

// answer is the run's final message so far.
func (p *printer) answer() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tally.answer.String()
}

// result is the json format's object for a run that exits with code.
func (p *printer) result(code int, answer string, structured []byte, schemaFailed bool) Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tally.result(code, answer, structured, schemaFailed)
}

// text renders the human form: the answer on stdout, progress on stderr.
func (p *printer) text(e protocol.Event) {
	switch e := e.(type) {
	case protocol.TextEvent:
		if p.holdAnswer {
			break
		}
		fmt.Fprint(p.opts.Out, e.Text)
		p.midLine = !strings.HasSuffix(e.Text, "\n")
	case protocol.DoneEvent:
		p.endLine()
	case protocol.CommandResultEvent:
		p.endLine()
		if p.holdAnswer {
			e.Output, e.Choices = "", nil
		}
		if e.Output != "" {
			fmt.Fprintln(p.opts.Out, strings.TrimRight(e.Output, "\n"))
		}
		for _, c := range e.Choices {
			// Nobody can pick here; each choice is a command line to run.
			fmt.Fprintf(p.opts.Out, "  %s  — %s\n", c.Line, c.Label)
		}
		if e.Error != "" {
			p.line("[error] /%s: %s", e.Command, e.Error)
		}
	case protocol.ToolCallEvent:
		p.line("[tool] %s %s", e.Name, prose.Cut(string(e.Input), 300))
	case protocol.ToolDeniedEvent:
		if e.By == "headless" {
			p.line("[denied] %s (run with --yolo to allow tool use in headless mode)", e.Name)
		} else {
			p.line("[denied] %s by %s: %s", e.Name, e.By, oneLine(e.Reason, 400))
		}
	case protocol.ToolResultEvent:
		if p.opts.Results {
			p.line("%s", indentResult(e.Output, 8))
		}
	case protocol.ToolErrorEvent:
		p.line("[tool-error] %s: %s", e.Name, oneLine(e.Error, 400))
	case protocol.SandboxRefusedEvent:
		p.line("%s", refusedLine(e))
	case protocol.ApprovalRequestEvent:
		if e.Sandbox != nil {
			p.line(`[approval] %s was refused %s: answer {"type":"approval","id":%q,"answer":"yes|always|project|no"} to allow it and run it again`, e.Name, e.Sandbox, e.ID)
			break
		}
		p.line(`[approval] %s %s: answer {"type":"approval","id":%q,"answer":"yes|always|no"}`, e.Name, oneLine(e.Title, 200), e.ID)
	case protocol.QuestionEvent:
		p.line(`[question] %s: answer {"type":"answer","id":%q,"text":"…"}`, oneLine(e.Question, 300), e.ID)
	case protocol.NoticeEvent:
		p.line("[notice] %s", e.Text)
	case protocol.CompactedEvent:
		p.line("[compacted] %s", e.String())
	case protocol.ErrorEvent:
		p.line("[error] %s", e.Error)
	}
}

// printResult writes the json format's one object.
func (p *printer) printResult(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	// Shell lines in the answer stay as written: no \u003e for ">".
	enc := json.NewEncoder(p.opts.Out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		p.line("[error] encoding the result: %v", err)
	}
}

// printAnswer writes the answer held back while the run went (the text
// format under --output-schema) on stdout.
func (p *printer) printAnswer(answer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	fmt.Fprintln(p.opts.Out, answer)
}

// summary is the text mode's last line on stderr: the session's tokens
// and, when its model is priced, what they cost. It is the same total
// /cost and the TUI show.
func (p *printer) summary(u protocol.UsageEvent) {
	line := fmt.Sprintf("[usage] %s in · %s out", thousands(u.InputTokens), thousands(u.OutputTokens))
	if u.CacheReadTokens+u.CacheWriteTokens > 0 {
		line += fmt.Sprintf(" · cache %s read, %s written", thousands(u.CacheReadTokens), thousands(u.CacheWriteTokens))
	}
	if c := u.Cost(); c != "" {
		line += " · cost " + c
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line("%s", line)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// endLine ends answer text left without a newline.
func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.opts.Out)
		p.midLine = false
	}
}

// line writes one progress line to stderr, first ending any answer text
// on stdout so the two streams interleave readably on a terminal.
func (p *printer) line(format string, args ...any) {
	p.endLine()
	fmt.Fprintf(p.opts.Err, format+"\n", args...)
}

// indentResult shows the first lines of a tool result under its call.
func indentResult(out string, lines int) string {
	ls := strings.Split(strings.TrimRight(out, "\n"), "\n")
	more := ""
	if len(ls) > lines {
		more = fmt.Sprintf("\n    … %d more lines", len(ls)-lines)
		ls = ls[:lines]
	}
	for i, l := range ls {
		ls[i] = "    " + prose.Cut(strings.ReplaceAll(l, "\t", "  "), 160)
	}
	return strings.Join(ls, "\n") + more
}

// oneLine folds prose (reasons, errors) onto one line.
func oneLine(s string, limit int) string {
	return prose.Cut(strings.Join(strings.Fields(s), " "), limit)
}
