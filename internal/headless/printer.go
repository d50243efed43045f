package headless

import (
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
)

// printer renders events for one of the two output modes.
type printer struct {
	opts Options
	// midLine is true when assistant text was printed without a newline.
	midLine bool
}

func newPrinter(opts Options) *printer { return &printer{opts: opts} }

func (p *printer) print(e agent.Event) {
	if p.opts.JSON {
		b, err := agent.MarshalEvent(e)
		if err != nil {
			b = []byte(fmt.Sprintf(`{"type":"error","error":%q}`, err.Error()))
		}
		fmt.Fprintf(p.opts.Out, "%s\n", b)
		return
	}
	p.text(e)
}

// fail reports an error that happened outside a turn.
func (p *printer) fail(msg string) {
	p.print(agent.ErrorEvent{Error: msg})
}

// text renders the human form: the answer on stdout, progress on stderr.
func (p *printer) text(e agent.Event) {
	switch e := e.(type) {
	case agent.TextEvent:
		fmt.Fprint(p.opts.Out, e.Text)
		p.midLine = !strings.HasSuffix(e.Text, "\n")
	case agent.DoneEvent:
		if p.midLine {
			fmt.Fprintln(p.opts.Out)
			p.midLine = false
		}
	case agent.ToolCallEvent:
		p.line("[tool] %s %s", e.Name, cut(string(e.Input), 300))
	case agent.ToolDeniedEvent:
		if e.By == "headless" {
			p.line("[denied] %s (run with --yolo to allow tool use in headless mode)", e.Name)
		} else {
			p.line("[denied] %s by %s: %s", e.Name, e.By, oneLine(e.Reason, 400))
		}
	case agent.ToolResultEvent:
		if p.opts.Results {
			p.line("%s", indentResult(e.Output, 8))
		}
	case agent.ToolErrorEvent:
		p.line("[tool-error] %s: %s", e.Name, oneLine(e.Error, 400))
	case agent.NoticeEvent:
		p.line("[notice] %s", e.Text)
	case agent.CompactedEvent:
		p.line("[compacted] %s", e.String())
	case agent.ErrorEvent:
		p.line("[error] %s", e.Error)
	}
}

// line writes one progress line to stderr, first ending any answer text
// on stdout so the two streams interleave readably on a terminal.
func (p *printer) line(format string, args ...any) {
	if p.midLine {
		fmt.Fprintln(p.opts.Out)
		p.midLine = false
	}
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
		ls[i] = "    " + cut(strings.ReplaceAll(l, "\t", "  "), 160)
	}
	return strings.Join(ls, "\n") + more
}

// oneLine folds prose (reasons, errors) onto one line.
func oneLine(s string, limit int) string {
	return cut(strings.Join(strings.Fields(s), " "), limit)
}

// cut shortens s to limit characters.
func cut(s string, limit int) string {
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
