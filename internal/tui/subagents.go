package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// subagentRow is one subagent of a task call: one line under the call
// with its kind, its description and its latest step, which gives way to
// how it ended.
type subagentRow struct {
	id, kind, desc string
	step           string // the latest step while it runs
	state          subagentState
	end            string // "finished after N tool calls", or why it failed
}

type subagentState int

const (
	subagentRunning subagentState = iota
	subagentDone
	subagentFailed
)

// descWidth bounds the description column, so the steps of a batch line
// up and still have room.
const descWidth = 36

// subagent applies one progress event to the call's rows. Rows keep the
// order of the briefs, whatever order their subagents start in.
func (t *toolItem) subagent(e protocol.SubagentEvent) {
	i := slices.IndexFunc(t.subagents, func(r *subagentRow) bool { return r.id == e.ID })
	if i < 0 {
		t.subagents = append(t.subagents, &subagentRow{id: e.ID, kind: e.Kind})
		slices.SortStableFunc(t.subagents, func(a, b *subagentRow) int { return cmp.Compare(briefIndex(a.id), briefIndex(b.id)) })
		i = slices.IndexFunc(t.subagents, func(r *subagentRow) bool { return r.id == e.ID })
	}
	r := t.subagents[i]
	switch e.Phase {
	case protocol.SubagentStart:
		r.desc = e.Text
	case protocol.SubagentStep:
		r.step = e.Text
	case protocol.SubagentEnd:
		r.state, r.end = subagentDone, e.Text
	case protocol.SubagentError:
		r.state, r.end = subagentFailed, e.Text
	}
}

// briefIndex is n of a subagent ID "<call id>.<n>" (0 when there is none).
func briefIndex(id string) int {
	i := strings.LastIndexByte(id, '.')
	n, _ := strconv.Atoi(id[i+1:])
	return n
}

// settleSubagents marks subagents that never reported an end (their turn
// was cut off) as stopped.
func (t *toolItem) settleSubagents() bool {
	changed := false
	for _, r := range t.subagents {
		if r.state == subagentRunning {
			r.state, r.end, changed = subagentFailed, "stopped", true
		}
	}
	return changed
}

// subagentSummary replaces a task call's argument once its subagents
// show: how many, of which kind, and how many are still at work.
func (t *toolItem) subagentSummary() string {
	kind := t.subagents[0].kind
	for _, r := range t.subagents {
		if r.kind != kind {
			kind = ""
		}
	}
	n := len(t.subagents)
	s := fmt.Sprintf("%d %s", n, prose.Plural(n, "subagent", "subagents"))
	if kind != "" {
		s = fmt.Sprintf("%d %s %s", n, kind, prose.Plural(n, "subagent", "subagents"))
	}
	var running, failed int
	for _, r := range t.subagents {
		switch r.state {
		case subagentRunning:
			running++
		case subagentFailed:
			failed++
		}
	}
	if running > 0 {
		s += fmt.Sprintf(" · %d running", running)
	}
	if failed > 0 {
		s += fmt.Sprintf(" · %d failed", failed)
	}
	return s
}

// renderSubagents draws the rows as aligned columns: glyph, kind,
// description, then the latest step or how it ended.
func renderSubagents(r *renderCtx, rows []*subagentRow, width int) []string {
	kindW, descW := 0, 0
	for _, row := range rows {
		kindW = max(kindW, ansi.StringWidth(row.kind))
		descW = max(descW, ansi.StringWidth(row.desc))
	}
	descW = min(descW, descWidth, max(width/3, 8))
	out := make([]string, 0, len(rows))
	for i, row := range rows {
		lead := "    "
		if i == 0 {
			lead = "  ⎿ "
		}
		var glyph, status string
		switch row.state {
		case subagentRunning:
			glyph = r.st.dim.Render("○")
			status = r.st.dim.Render(cmp.Or(row.step, "starting…"))
		case subagentDone:
			glyph = r.st.ok.Render("●")
			status = r.st.dim.Render(row.end)
		case subagentFailed:
			glyph = r.st.fail.Render("●")
			status = r.st.fail.Render("failed: " + oneLine(row.end))
		}
		desc := ansi.Truncate(oneLine(row.desc), descW, "…")
		line := fmt.Sprintf("%s%s %s  %s  %s", lead, glyph,
			r.st.toolName.Render(padRight(row.kind, kindW)), padRight(desc, descW), status)
		out = append(out, ansi.Truncate(line, width, "…"))
	}
	return out
}

// padRight pads s with spaces to w cells.
func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}
