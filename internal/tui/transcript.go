package tui

import (
	"strings"
)

// entry is one block of the transcript with its rendered lines cached for
// the width they were rendered at. Only changed entries are re-rendered,
// so a long session costs little per frame.
type entry struct {
	it    item
	lines []string
	width int
	valid bool
}

// item is something shown in the transcript; one Go type per kind (see
// items.go).
type item interface {
	render(r *renderCtx, width int) []string
}

// renderCtx is what rendering needs besides the item itself.
type renderCtx struct {
	st            *styles
	md            *markdown
	showReasoning bool
	// expandOutput shows tool output and diffs whole (ctrl-o).
	expandOutput bool
	// promptRows bounds a question drawn in the transcript.
	promptRows int
}

// transcript is the scrolling record of the session: the person's prompts,
// the answers, tool calls and notices.
type transcript struct {
	entries []*entry
	tools   map[string]*entry // tool calls by call ID
	text    *entry            // the assistant text block being streamed
	thought *entry            // the reasoning block being streamed

	lines []string // every entry's lines, flattened
	stale bool
}

func newTranscript() *transcript { return &transcript{tools: map[string]*entry{}} }

func (t *transcript) add(it item) *entry {
	e := &entry{it: it}
	t.entries = append(t.entries, e)
	t.stale = true
	return e
}

// touch marks an entry for re-rendering.
func (t *transcript) touch(e *entry) {
	e.valid = false
	t.stale = true
}

// invalidateAll re-renders everything (a resize, the reasoning toggle).
func (t *transcript) invalidateAll() {
	for _, e := range t.entries {
		e.valid = false
	}
	t.stale = true
}

// clear empties the view (/clear). The terminal's own scrollback is left
// alone.
func (t *transcript) clear() {
	*t = *newTranscript()
	t.stale = true
}

// appendText streams assistant text into the open text block.
func (t *transcript) appendText(s string) {
	t.closeThought()
	if t.text == nil {
		t.text = t.add(&textItem{})
	}
	t.text.it.(*textItem).raw.WriteString(s)
	t.touch(t.text)
}

// appendReasoning streams reasoning into the open reasoning block.
func (t *transcript) appendReasoning(s string) {
	if t.thought == nil {
		t.closeText()
		t.thought = t.add(&reasoningItem{})
	}
	t.thought.it.(*reasoningItem).raw.WriteString(s)
	t.touch(t.thought)
}

// closeBlocks ends the streamed blocks: text is rendered as markdown from
// now on. Called when anything other than a delta arrives.
func (t *transcript) closeBlocks() {
	t.closeText()
	t.closeThought()
}

func (t *transcript) closeText() {
	if t.text != nil {
		t.text.it.(*textItem).done = true
		t.touch(t.text)
		t.text = nil
	}
}

func (t *transcript) closeThought() {
	if t.thought != nil {
		t.thought.it.(*reasoningItem).done = true
		t.touch(t.thought)
		t.thought = nil
	}
}

// tool returns the entry of a tool call, creating it on first sight.
func (t *transcript) tool(id, name string) (*entry, *toolItem) {
	if e, ok := t.tools[id]; ok && id != "" {
		return e, e.it.(*toolItem)
	}
	ti := &toolItem{id: id, name: name, state: toolStreaming}
	e := t.add(ti)
	if id != "" {
		t.tools[id] = e
	}
	return e, ti
}

// render brings the flattened lines up to date for width.
func (t *transcript) render(r *renderCtx, width int) []string {
	if !t.stale {
		for _, e := range t.entries {
			if e.width != width {
				t.stale = true
				break
			}
		}
	}
	if !t.stale {
		return t.lines
	}
	lines := t.lines[:0]
	for i, e := range t.entries {
		if !e.valid || e.width != width {
			e.lines = e.it.render(r, width)
			e.width, e.valid = width, true
		}
		if i > 0 && len(e.lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, e.lines...)
	}
	t.lines, t.stale = lines, false
	return lines
}

// splitLines splits rendered text into lines, dropping one trailing
// newline.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
