package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/shiro-neko/shiro/internal/llm"
)

// indentOf is how many columns line is indented past the first line of
// text that contains anchor, or -1 when either is missing from frame.
func indentOf(frame, anchor, line string) int {
	col := func(s string) int {
		for _, l := range strings.Split(frame, "\n") {
			if i := strings.Index(l, s); i >= 0 {
				return len([]rune(l[:i]))
			}
		}
		return -1
	}
	a, l := col(anchor), col(line)
	if a < 0 || l < 0 {
		return -1
	}
	return l - a
}

// Go code is indented with tabs. A finished answer's fenced block must keep
// that indentation on screen: the terminal grid has no tab stops, so a tab
// that reaches it unexpanded draws as nothing and the block renders flat.
func TestGoCodeBlockKeepsItsTabIndentation(t *testing.T) {
	answer := "Like this:\n\n```go\nfunc f(ok bool) {\n\tif ok {\n\t\treturn\n\t}\n}\n```\n"
	p := newGatedProvider([]llm.StreamPart{llm.TextDelta{Text: answer}, finish(10, 5)})
	a := startAgent(t, agentOpts{provider: p})
	d := startDriver(t, a.Owner, Options{})
	d.submit("show me")
	frame := d.waitDone(1)
	for _, c := range []struct {
		line string
		want int
	}{{"if ok {", tabWidth}, {"return", 2 * tabWidth}} {
		if got := indentOf(frame, "func f(ok bool) {", c.line); got != c.want {
			t.Errorf("%q is indented %d columns past func, want %d:\n%s", c.line, got, c.want, frame)
		}
	}
	if strings.Contains(frame, "\t") {
		t.Errorf("the frame holds a raw tab:\n%q", frame)
	}
	golden.RequireEqual(t, normalize(frame, a.work))
}

// While the answer streams it is shown raw, and its tabs are expanded too.
func TestStreamingCodeKeepsItsTabIndentation(t *testing.T) {
	p := newGatedProvider([]llm.StreamPart{
		llm.TextDelta{Text: "```go\nfunc f() {\n\treturn\n"}, gate{}, llm.TextDelta{Text: "}\n```\n"}, finish(10, 5),
	})
	a := startAgent(t, agentOpts{provider: p})
	d := startDriver(t, a.Owner, Options{})
	d.submit("go")
	frame := d.waitText("func f() {", "working")
	if got := indentOf(frame, "func f() {", "return"); got != tabWidth {
		t.Errorf("streamed return is indented %d columns past func, want %d:\n%s", got, tabWidth, frame)
	}
	if strings.Contains(frame, "\t") {
		t.Errorf("the frame holds a raw tab:\n%q", frame)
	}
	p.release <- struct{}{}
	d.waitDone(1)
}

// A tab reaches the next stop, counted in cells from the start of its line.
func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{
		"no tabs":   "no tabs",
		"\tx":       "    x",
		"\t\tx":     "        x",
		"a\tb":      "a   b",
		"abcd\te":   "abcd    e",
		"日\tx":      "日  x",
		"a\n\tb\tc": "a\n    b   c",
		"x \t\ty":   "x       y",
	} {
		if got := expandTabs(in, 4); got != want {
			t.Errorf("expandTabs(%q) = %q, want %q", in, got, want)
		}
	}
}
