package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// layout sizes the input for the window.
func (m *model) layout() {
	m.input.SetWidth(max(m.width, 20))
}

// View implements tea.Model: the transcript on top, then any prompt or
// menu, the queue, the input and the status line at the bottom.
func (m *model) View() tea.View {
	v := tea.NewView(m.frame())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "shiro"
	// Focus reports decide whether a notification is wanted.
	v.ReportFocus = m.notifier.method != notifyNone
	return v
}

// frame renders the whole screen as text.
func (m *model) frame() string {
	if m.quitting {
		return ""
	}
	bottom := m.bottom()
	h := max(m.height-len(bottom), 1)
	lines := m.transcriptLines(h)
	return strings.Join(append(lines, bottom...), "\n")
}

// bottom is everything under the transcript, top to bottom.
func (m *model) bottom() []string {
	var out []string
	w := max(m.width, 20)
	modalHeight := m.modalHeight()
	switch {
	case m.approval != nil:
		m.approval.note, m.approval.guarded = m.guardNote(), m.guarded()
		out = append(out, splitLines(m.approval.view(&m.st, w, modalHeight))...)
	case len(m.pickers) > 0 && m.question == nil:
		out = append(out, splitLines(m.pickers[0].view(&m.st, w, modalHeight))...)
	case m.menuOpen():
		out = append(out, m.menuLines(w)...)
	case m.mentionOpen():
		out = append(out, m.mentionLines(w)...)
	}
	// Input the session holds behind the running turn. Without a turn the
	// session is about to start it, so it is not shown as waiting.
	if m.turn != nil && len(m.pending) > 0 {
		for i, q := range m.pending {
			out = append(out, ansi.Truncate(m.st.dim.Render(fmt.Sprintf("queued %d: %s", i+1, oneLine(q.text))), w, "…"))
		}
		out = append(out, m.st.dim.Render("  (sent when the turn ends; esc drops the queue)"))
	}
	out = append(out, m.st.dim.Render(strings.Repeat("─", w)))
	out = append(out, splitLines(m.input.View())...)
	out = append(out, m.statusLine(w))
	return append(out, m.tasksPanel(w)...)
}

// modalHeight bounds a prompt: at most two thirds of the screen, so the
// transcript line that it is about stays in view.
func (m *model) modalHeight() int { return max(m.height*2/3, 8) }

func (m *model) renderCtx() *renderCtx {
	return &renderCtx{st: &m.st, md: m.md, showReasoning: m.reasoning, expandOutput: m.expanded, promptRows: m.modalHeight()}
}

// transcriptHeight is how many rows the transcript has now.
func (m *model) transcriptHeight() int { return max(m.height-len(m.bottom()), 1) }

// transcriptLines returns exactly h rows of the transcript.
func (m *model) transcriptLines(h int) []string {
	all := m.tr.render(m.renderCtx(), max(m.width, 20))
	maxOff := max(len(all)-h, 0)
	if m.follow || m.offset >= maxOff {
		m.offset, m.follow = maxOff, true
	}
	m.offset = max(m.offset, 0)
	end := min(m.offset+h, len(all))
	out := make([]string, 0, h)
	for _, l := range all[m.offset:end] {
		out = append(out, ansi.Truncate(l, max(m.width, 1), ""))
	}
	if !m.follow && len(out) > 0 {
		hint := m.st.dim.Render(fmt.Sprintf("── %d more lines below · pgdown ──", len(all)-end))
		out[len(out)-1] = ansi.Truncate(hint, max(m.width, 1), "")
	}
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

// scrollBy moves the transcript by n lines (negative is up).
func (m *model) scrollBy(n int) {
	h := m.transcriptHeight()
	all := m.tr.render(m.renderCtx(), max(m.width, 20))
	maxOff := max(len(all)-h, 0)
	if m.follow {
		m.offset = maxOff
	}
	m.offset = min(max(m.offset+n, 0), maxOff)
	m.follow = m.offset >= maxOff
}

// statusLine: a spinner and the elapsed time while a turn runs, then
// the model, agent, thinking, tokens, cache hit ratio, dollars (when the
// model is priced) and background commands, all as the session reported
// them.
func (m *model) statusLine(w int) string {
	u := m.usage.Usage
	parts := []string{
		modelName(m.info),
		"agent " + m.info.Agent,
		"think " + m.info.Thinking,
		fmt.Sprintf("↑%s ↓%s", compact(u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens), compact(u.OutputTokens)),
	}
	if u.CacheReadTokens+u.CacheWriteTokens > 0 {
		parts = append(parts, fmt.Sprintf("cache %.0f%%", hitRatio(u)*100))
	}
	if c := statusCost(m.usage); c != "" {
		parts = append(parts, c)
	}
	if m.background > 0 {
		parts = append(parts, fmt.Sprintf("%d bg", m.background))
	}
	left := m.st.status.Render(strings.Join(parts, " · "))
	if m.status.line != "" {
		left = m.status.line // the person's status line command's
	}
	if mode := modeIndicator(m.info.Mode); mode != "" {
		// First, where it survives a narrow terminal's truncation.
		left = m.st.statusKey.Render(mode) + m.st.status.Render(" · ") + left
	}
	if m.turn != nil {
		state := "working"
		switch {
		case m.promptOpen():
			state = "waiting for you"
		case m.turn.aborted:
			state = "stopping"
		}
		left = m.spin.View() + " " + m.st.statusKey.Render(fmt.Sprintf("%s %s", state, elapsed(m.turn.started))) + m.st.status.Render(" · ") + left
	}
	return ansi.Truncate(left, w, "…")
}

// taskRows is how many tasks the panel lists; the rest are counted.
const taskRows = 6

// tasksPanel is the agent's task list under the status line while any
// task is open: a line with the counts, then the tasks with their state,
// the one in progress highlighted. A finished list goes away (/todos
// still shows it).
func (m *model) tasksPanel(w int) []string {
	if len(m.tasks) == 0 {
		return nil
	}
	var done, blocked int
	for _, t := range m.tasks {
		switch t.Status {
		case "done":
			done++
		case "blocked":
			blocked++
		}
	}
	if done == len(m.tasks) {
		return nil
	}
	head := fmt.Sprintf("tasks %d/%d done", done, len(m.tasks))
	if blocked > 0 {
		head += fmt.Sprintf(" · %d blocked", blocked)
	}
	out := []string{ansi.Truncate(m.st.status.Render(head), w, "…")}
	// Show the open tasks first when the list is long: what is done matters
	// least.
	list := m.tasks
	if len(list) > taskRows {
		var open, closed []protocol.Task
		for _, t := range list {
			if t.Status == "done" {
				closed = append(closed, t)
			} else {
				open = append(open, t)
			}
		}
		list = append(open, closed...)
	}
	for i, t := range list {
		if i == taskRows {
			out = append(out, m.st.dim.Render(fmt.Sprintf("  … %d more (/todos lists them all)", len(list)-taskRows)))
			break
		}
		line := fmt.Sprintf("  %s %s", t.Mark(), oneLine(t.Content))
		switch t.Status {
		case "in_progress":
			line = m.st.statusKey.Render(line)
		case "blocked":
			line = m.st.warn.Render(line)
		default:
			line = m.st.dim.Render(line)
		}
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	return out
}

// compact writes a token count as 950, 12.3k or 4.1M.
// statusCost is the session's spend, short: dollars when a call was
// priced, "+?" when some model had none; nothing when no call was priced.
func statusCost(u protocol.UsageEvent) string {
	if u.CostUSD == nil {
		return ""
	}
	if len(u.Unpriced) > 0 {
		return protocol.USD(*u.CostUSD) + "+?"
	}
	return protocol.USD(*u.CostUSD)
}

func compact(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

func elapsed(since time.Time) string {
	d := time.Since(since).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
