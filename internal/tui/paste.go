package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/prose"
)

// A long paste (a log, a file) would fill the input box and then the
// transcript. It is folded instead: the input shows a placeholder such as
// "[pasted 120 lines]", the message sent carries the whole text, and the
// transcript shows the message as it was typed, placeholder and all.

// A paste is folded from pasteFoldLines lines or pasteFoldChars
// characters on.
const (
	pasteFoldLines = 8
	pasteFoldChars = 800
)

// paste puts a paste into the input, folding a long one.
func (m *model) paste(msg tea.PasteMsg) tea.Cmd {
	content := unixLines(msg.Content)
	if path, ok := pastedImagePath(content); ok && m.attachImage(path) {
		return nil
	}
	lines := strings.Count(strings.TrimRight(content, "\n"), "\n") + 1
	if lines < pasteFoldLines && len(content) < pasteFoldChars {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(tea.PasteMsg{Content: content})
		m.afterInputChange()
		return cmd
	}
	token := fmt.Sprintf("[pasted %d %s]", lines, prose.Plural(lines, "line", "lines"))
	for n := 2; m.pastes[token] != "" && m.pastes[token] != content; n++ {
		token = fmt.Sprintf("[pasted %d %s #%d]", lines, prose.Plural(lines, "line", "lines"), n)
	}
	m.pastes[token] = content
	m.input.InsertString(token)
	m.afterInputChange()
	return nil
}

// takeInput empties the input and returns what it held: the text to send,
// folded pastes put back, and the text as shown.
func (m *model) takeInput() (text, shown string) {
	shown = m.input.Value()
	text = shown
	for token, content := range m.pastes {
		text = strings.ReplaceAll(text, token, content)
	}
	clear(m.pastes)
	m.sending = m.sending[:0]
	for _, token := range slices.Sorted(maps.Keys(m.images)) {
		// A placeholder the person deleted takes its picture with it.
		if strings.Contains(text, token) {
			m.sending = append(m.sending, m.images[token])
		}
	}
	clear(m.images)
	m.input.Reset()
	m.afterInputChange()
	return text, shown
}

// unixLines gives every line break of a paste as LF. tmux pastes with CR
// breaks and Windows text has CR LF; counted as one line, such a paste was
// never folded, and the input box (which reads each CR as a break of its
// own) doubled the lines of a CR LF one.
func unixLines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
