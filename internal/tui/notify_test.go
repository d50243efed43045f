package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// notifyModel is a model whose notifications are chosen from env.
func notifyModel(t *testing.T, mode string, env map[string]string) *model {
	t.Helper()
	return newModel(t.Context(), newFakeSession(t), newInbox(), Options{Notifications: mode, Getenv: func(k string) string { return env[k] }})
}

// sent runs what notifyFor returned and gives the escape sequence it
// prints ("" for none).
func sent(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	if cmd == nil {
		return ""
	}
	raw, ok := cmd().(tea.RawMsg)
	if !ok {
		t.Fatalf("not an escape sequence: %#v", cmd())
	}
	return raw.Msg.(string)
}

// Each terminal gets the sequence it understands, told by the variables
// it sets; inside tmux the sequence goes through tmux's passthrough.
func TestNotificationSequencePerTerminal(t *testing.T) {
	const osc9, osc777 = "\x1b]9;shiro: all done\x07", "\x1b]777;notify;shiro;all done\x07"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, osc9},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, osc9},
		{map[string]string{"TERM_PROGRAM": "ghostty", "TERM": "xterm-ghostty"}, osc9},
		{map[string]string{"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"}, osc9},
		{map[string]string{"WT_SESSION": "0b0c"}, osc9},
		{map[string]string{"TERM": "foot"}, osc777},
		{map[string]string{"TERM": "rxvt-unicode-256color"}, osc777},
		{map[string]string{"KONSOLE_VERSION": "230804", "TERM": "xterm-256color"}, osc777},
		{map[string]string{"TERM": "xterm-256color"}, ""},
		{map[string]string{"TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "TMUX": "/tmp/tmux-0/default,1,0", "LC_TERMINAL": "iTerm2"},
			"\x1bPtmux;\x1b\x1b]9;shiro: all done\x07\x1b\\"},
		{map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "KONSOLE_VERSION": "230804"},
			"\x1bPtmux;\x1b\x1b]777;notify;shiro;all done\x07\x1b\\"},
	} {
		m := notifyModel(t, "always", c.env)
		m.answer.WriteString("all done\n\nand more lines")
		if got := sent(t, m.notifyFor(protocol.DoneEvent{})); got != c.want {
			t.Errorf("%v: sent %q, want %q", c.env, got, c.want)
		}
	}
	// A forced method ignores the terminal.
	m := notifyModel(t, "osc777", map[string]string{"TERM_PROGRAM": "iTerm.app"})
	m.answer.WriteString("all done")
	m.Update(tea.BlurMsg{})
	if got := sent(t, m.notifyFor(protocol.DoneEvent{})); got != osc777 {
		t.Errorf("forced osc777: %q", got)
	}
}

// auto notifies only once the terminal said it lost focus; focus regained
// stops it; always notifies whatever the focus; off never does.
func TestNotificationFollowsFocus(t *testing.T) {
	env := map[string]string{"TERM_PROGRAM": "WezTerm"}
	done := protocol.DoneEvent{}
	m := notifyModel(t, "auto", env)
	if !m.View().ReportFocus {
		t.Error("focus reports are not asked for")
	}
	if got := sent(t, m.notifyFor(done)); got != "" {
		t.Errorf("focus unknown: sent %q", got)
	}
	m.Update(tea.BlurMsg{})
	if got := sent(t, m.notifyFor(done)); got != "\x1b]9;shiro: the turn ended\x07" {
		t.Errorf("focus lost: sent %q", got)
	}
	m.Update(tea.FocusMsg{})
	if got := sent(t, m.notifyFor(done)); got != "" {
		t.Errorf("focus back: sent %q", got)
	}
	if got := sent(t, notifyModel(t, "always", env).notifyFor(done)); got == "" {
		t.Error("always: nothing sent with focus unknown")
	}
	off := notifyModel(t, "off", env)
	off.Update(tea.BlurMsg{})
	if got := sent(t, off.notifyFor(done)); got != "" || off.View().ReportFocus {
		t.Errorf("off: sent %q, focus reports %v", got, off.View().ReportFocus)
	}
}

// An approval names the tool and the program, never the rest of the
// command line (a token may be in it); a question shows its first line;
// nothing in the text can end the escape sequence early.
func TestNotificationText(t *testing.T) {
	m := notifyModel(t, "osc9", nil)
	m.Update(tea.BlurMsg{})
	for _, c := range []struct {
		e    protocol.Event
		want string
	}{
		{protocol.ApprovalRequestEvent{Name: "bash", Kind: protocol.KindExecute, Title: "/usr/bin/git push --force origin main"}, "approval needed: bash git …"},
		{protocol.ApprovalRequestEvent{Name: "bash", Kind: protocol.KindExecute, Title: "API_TOKEN=s3cr3t curl https://x"}, "approval needed: bash"},
		{protocol.ApprovalRequestEvent{Name: "write_file", Kind: protocol.KindEdit, Title: "notes.txt"}, "approval needed: write_file"},
		{protocol.QuestionEvent{Question: "Which \x1b]0;evil\x07branch?\nmore"}, "question: Which branch?"},
	} {
		want := "\x1b]9;shiro: " + c.want + "\x07"
		if got := sent(t, m.notifyFor(c.e)); got != want {
			t.Errorf("%T: sent %q, want %q", c.e, got, want)
		}
	}
	m.answer.WriteString(strings.Repeat("long ", 40))
	if got := sent(t, m.notifyFor(protocol.DoneEvent{})); len([]rune(got)) > len("\x1b]9;shiro: \x07")+notifyLen {
		t.Errorf("not cut short: %q", got)
	}
}

// Without a terminal sequence, and with a display, notify-send is run
// with the title and the text as arguments; with nothing to run it,
// nothing is sent.
func TestNotifySend(t *testing.T) {
	bin, out := t.TempDir(), filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + out + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := notifyModel(t, "auto", map[string]string{"TERM": "xterm-256color", "DISPLAY": ":0", "PATH": bin, "API_KEY": "k"})
	m.Update(tea.BlurMsg{})
	m.answer.WriteString("Fixed the build.")
	cmd := m.notifyFor(protocol.DoneEvent{})
	if cmd == nil {
		t.Fatal("nothing sent")
	}
	if msg := cmd(); msg != nil {
		t.Fatalf("notify-send's command returned %#v", msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "--app-name=shiro\nshiro\nFixed the build.\n" {
		t.Fatalf("notify-send got %q", got)
	}
	if notifyModel(t, "auto", map[string]string{"DISPLAY": ":0", "PATH": t.TempDir()}).notifier.method != notifyNone {
		t.Error("a method chosen without notify-send on PATH")
	}
	if notifyModel(t, "auto", map[string]string{"PATH": bin}).notifier.method != notifyNone {
		t.Error("notify-send chosen without a display")
	}
}
