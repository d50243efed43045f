package tui

import (
	"fmt"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// The @ picker. Typing @ at the start of a word asks the session for the
// workspace paths that match the rest of the word (the files command,
// which the session answers from a lazy, ignore-aware walk) and shows them
// above the input. Tab or enter puts the highlighted path in place of the
// word: a directory keeps the picker open on its contents, a file ends the
// word. When the message is sent, the session attaches the files it names.

// filesCommand is the session's command that lists paths for the picker.
const filesCommand = "files"

// mentionRows is how many paths the picker shows.
const mentionRows = 8

// mentionState is the picker's state.
type mentionState struct {
	// word is the @word at the cursor, without the @; active is false
	// when the cursor is not in one.
	word   string
	active bool
	// asked holds the /files lines sent and not yet answered, by the id
	// the session gave each.
	asked map[string]string
	// results answer the query in results' line.
	results     []string
	resultsLine string
	sel         int
	// hidden is set when esc closed the picker for this word.
	hidden bool
}

// filesLine is the command line that asks for query's paths.
func filesLine(query string) string { return strings.TrimSpace("/" + filesCommand + " " + query) }

// canMention reports whether the session lists paths.
func (m *model) canMention() bool {
	for _, c := range m.commands {
		if c.Name == filesCommand {
			return true
		}
	}
	return false
}

// mentionWord finds the @word that ends at the cursor.
func (m *model) mentionWord() (string, bool) {
	lines := strings.Split(m.input.Value(), "\n")
	row := m.input.Line()
	if row >= len(lines) {
		return "", false
	}
	line := []rune(lines[row])
	col := min(m.input.Column(), len(line))
	start := col
	for start > 0 && !unicode.IsSpace(line[start-1]) {
		start--
	}
	word := string(line[start:col])
	if !strings.HasPrefix(word, "@") {
		return "", false
	}
	return word[1:], true
}

// updateMention follows the input: a new @word asks for its paths.
func (m *model) updateMention() {
	ms := &m.mention
	word, ok := m.mentionWord()
	if !ok || !m.canMention() || strings.HasPrefix(m.input.Value(), "/") {
		ms.active, ms.hidden, ms.word = false, false, ""
		return
	}
	if ms.active && word == ms.word {
		return
	}
	ms.active, ms.word, ms.sel = true, word, 0
	line := filesLine(word)
	if ms.resultsLine == line || ms.waiting(line) {
		return
	}
	m.askFiles(line)
}

// waiting reports whether line was sent and is not answered yet.
func (ms *mentionState) waiting(line string) bool {
	for _, l := range ms.asked {
		if l == line {
			return true
		}
	}
	return false
}

// askFiles sends a /files line for the picker.
func (m *model) askFiles(line string) {
	ms := &m.mention
	id, err := m.s.Submit(protocol.Command{Line: line})
	if err != nil {
		return // the session is closing: no picker
	}
	if ms.asked == nil {
		ms.asked = map[string]string{}
	}
	ms.asked[id] = line
}

// refreshMention asks again for the @word being typed when a turn ends (it
// may have written files; the session lists the workspace again after
// such a turn). An open picker keeps what it shows until the fresh answer
// replaces it: closing it in between would let a tab typed meanwhile fall
// through to nothing. With no @word, the paths are forgotten, so the next
// one asks.
func (m *model) refreshMention() {
	ms := &m.mention
	if !ms.active || strings.HasPrefix(m.input.Value(), "/") {
		ms.results, ms.resultsLine = nil, ""
		return
	}
	m.askFiles(filesLine(ms.word))
}

// mentionResult takes the session's answer to a /files line the picker
// sent; it reports false for any other result.
func (m *model) mentionResult(e protocol.CommandResultEvent) bool {
	ms := &m.mention
	line, ok := ms.asked[e.Op]
	if !ok || e.Op == "" {
		return false
	}
	delete(ms.asked, e.Op)
	// The session answers each line on its own goroutine, so an older
	// query's answer can come after the current one's: it must not
	// replace it, or the picker closes and nothing asks again.
	if current := filesLine(ms.word); ms.resultsLine == current && line != current {
		return true
	}
	if line != ms.resultsLine {
		ms.sel = 0 // a fresh answer to the same query keeps the highlight
	}
	ms.results, ms.resultsLine = splitLines(e.Output), line
	m.layout()
	return true
}

// mentionOpen reports whether the picker shows: the cursor is in an
// @word whose paths have arrived.
func (m *model) mentionOpen() bool {
	ms := &m.mention
	return ms.active && !ms.hidden && !m.modalOpen() && ms.resultsLine == filesLine(ms.word) && len(ms.results) > 0
}

// mentionKey handles the keys of an open picker.
func (m *model) mentionKey(key string) (tea.Cmd, bool) {
	if !m.mentionOpen() {
		return nil, false
	}
	ms := &m.mention
	switch key {
	case "up":
		ms.sel = clampSel(ms.sel-1, min(len(ms.results), mentionRows))
	case "down":
		ms.sel = clampSel(ms.sel+1, min(len(ms.results), mentionRows))
	case "tab", "enter":
		m.completeMention(ms.results[clampSel(ms.sel, len(ms.results))])
	case "esc":
		ms.hidden = true
	default:
		return nil, false
	}
	return nil, true
}

// completeMention puts path in place of the @word at the cursor. A file
// ends the word with a space; a directory keeps it open on its contents.
func (m *model) completeMention(path string) {
	word, ok := m.mentionWord()
	if !ok {
		return
	}
	for range []rune(word) {
		m.input, _ = m.input.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	if !strings.HasSuffix(path, "/") {
		path += " "
	}
	m.input.InsertString(path)
	m.afterInputChange()
}

// mentionLines draws the picker.
func (m *model) mentionLines(w int) []string {
	ms := &m.mention
	shown := ms.results[:min(len(ms.results), mentionRows)]
	sel := clampSel(ms.sel, len(shown))
	out := make([]string, 0, len(shown)+1)
	for i, p := range shown {
		line := ansi.Truncate(" @"+p, w, "…")
		if i == sel {
			line = m.st.menuSel.Render(line + strings.Repeat(" ", max(w-ansi.StringWidth(line), 0)))
		} else {
			line = m.st.menuItem.Render(line)
		}
		out = append(out, line)
	}
	more := ""
	if n := len(ms.results) - len(shown); n > 0 {
		more = fmt.Sprintf("%d more · ", n)
	}
	return append(out, m.st.dim.Render(" "+more+"↑/↓ move · tab or enter completes · esc closes"))
}
