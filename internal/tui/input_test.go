package tui

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// A long paste folds to a placeholder in the input and in the transcript,
// while the session gets the whole text; a short one is typed as is.
func TestLongPastesFold(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	var long strings.Builder
	for i := range 120 {
		fmt.Fprintf(&long, "log line %d: %s\n", i, strings.Repeat("x", 40))
	}
	d.typeText("see ")
	d.send(tea.PasteMsg{Content: long.String()})
	d.typeText(" and ")
	d.send(tea.PasteMsg{Content: "short"})
	d.waitText("› see [pasted 120 lines] and short")
	d.press("enter")
	want := "see " + long.String() + " and short"
	if op := s.nextOp(t); op != (protocol.UserTurn{Text: want}) {
		t.Fatalf("op = %.80q…", fmt.Sprint(op))
	}
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: want})
	frame := d.waitText("› see [pasted 120 lines] and short")
	if strings.Contains(frame, "log line 3:") {
		t.Fatalf("the paste is shown whole:\n%s", frame)
	}
	// The history keeps the whole text, so up brings it back whole.
	d.inspect(func(m *model) {
		if m.hist.entries[len(m.hist.entries)-1] != want {
			t.Errorf("history = %.60q", m.hist.entries[len(m.hist.entries)-1])
		}
	})
}

// Typing @ asks the session for paths (/files) and shows them; tab puts
// the highlighted one in place of the word, a folder keeps the picker on
// its contents, and the answers never show in the transcript.
func TestAtPicksAPath(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.CommandsEvent{Commands: append(testCommands(), protocol.CommandInfo{Name: "files", Args: "[QUERY]", Summary: "paths", Immediate: true})})
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test")
	d.typeText("look at @s")
	d.typeText("r")
	for _, q := range []string{"/files", "/files s", "/files sr"} {
		if op := s.nextOp(t); op != (protocol.Command{Line: q}) {
			t.Fatalf("op = %#v, want %s", op, q)
		}
	}
	s.emit(protocol.CommandResultEvent{Command: "files", Line: "/files s", Output: "stale/"},
		protocol.CommandResultEvent{Command: "files", Line: "/files sr", Output: "src/\nscripts/run.sh"})
	frame := d.waitText(" @src/", " @scripts/run.sh", "tab or enter completes")
	if strings.Contains(frame, "stale/") {
		t.Fatalf("an answer to an older query shows:\n%s", frame)
	}
	d.press("tab")
	d.waitText("› look at @src/")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/files src/"}) {
		t.Fatalf("op = %#v", op)
	}
	s.emit(protocol.CommandResultEvent{Command: "files", Line: "/files src/", Output: "src/main.go\nsrc/util.go"})
	d.waitText(" @src/util.go")
	d.press("down")
	d.press("enter")
	d.waitText("› look at @src/util.go ")
	d.typeText("please")
	d.press("enter")
	for {
		op := s.nextOp(t)
		if turn, ok := op.(protocol.UserTurn); ok {
			if turn.Text != "look at @src/util.go please" {
				t.Fatalf("turn = %q", turn.Text)
			}
			break
		}
	}
	frame = d.waitText("Ask shiro, or type / for commands")
	if strings.Contains(frame, "src/main.go") {
		t.Fatalf("the picker's answers reached the transcript:\n%s", frame)
	}
}

// A command's field takes a typed value; a secret one is masked on screen,
// sent whole, echoed masked and kept out of the history.
func TestSecretFieldIsMasked(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.CommandResultEvent{Command: "provider", Output: "Paste your API key.",
		Field: &protocol.Field{Label: "API key", Line: "/provider openai url https://api.openai.com/v1 key", Secret: true}})
	d.waitText("/provider", "Paste your API key.", "API key:")
	d.send(tea.PasteMsg{Content: "sk-very-secret\n"})
	frame := d.waitText("API key: ••••••••••••••")
	if strings.Contains(frame, "sk-very-secret") {
		t.Fatalf("the key shows:\n%s", frame)
	}
	d.press("enter")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/provider openai url https://api.openai.com/v1 key sk-very-secret"}) {
		t.Fatalf("op = %#v", op)
	}
	frame = d.waitText("› /provider openai url https://api.openai.com/v1 key ••••••••")
	if strings.Contains(frame, "sk-very") {
		t.Fatalf("the key shows:\n%s", frame)
	}
	d.inspect(func(m *model) {
		for _, e := range m.hist.entries {
			if strings.Contains(e, "sk-very") {
				t.Errorf("the key is in the history: %q", e)
			}
		}
	})
}

// Up and down walk the history even through a recalled slash command,
// whose menu would otherwise take the keys.
func TestHistoryWalksThroughSlashCommands(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.submit("/cost")
	d.submit("hello")
	d.press("up")
	d.waitText("› hello")
	d.press("up")
	d.waitText("› /cost")
	d.press("down")
	frame := d.waitText("› hello")
	if strings.Contains(frame, "tokens, cache reads and writes") {
		t.Fatalf("the menu opened on a recalled command:\n%s", frame)
	}
	d.press("up")
	d.waitText("› /cost")
	d.typeText("x")
	d.waitModel("the menu to follow an edited line", func(m *model) bool { return !m.browsing })
}

// /copy puts the last answer on the clipboard with OSC 52.
func TestCopySendsTheLastAnswerWithOSC52(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "turn.jsonl"})
	tp := newTap(a.Owner)
	p := runProgram(t, tp, Options{})
	p.typeKeys(t, "/copy\r")
	p.screen.waitText(t, "nothing to copy yet")
	p.typeKeys(t, "hello\r")
	// The session has ended the turn when the tap saw done, but the
	// program takes events in frame batches: /copy typed before it drew
	// the turn's end would find no answer. The cache share of the turn's
	// usage shows once it has.
	tp.waitSeen(t, "done", 1)
	p.screen.waitText(t, "58%")
	p.typeKeys(t, "/copy\r")
	p.screen.waitText(t, "copied the last answer")
	var answer strings.Builder
	for _, m := range a.History() {
		if m.Role == "assistant" {
			answer.WriteString(m.PlainText())
		}
	}
	p.screen.waitBytes(t, "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte(strings.TrimSpace(answer.String()))))
	p.typeKeys(t, "/exit\r")
	if _, err := p.wait(t); err != nil {
		t.Fatal(err)
	}
	if got := tp.submitted(); !reflect.DeepEqual(got[0], protocol.UserTurn{Text: "hello"}) {
		t.Fatalf("ops = %#v", got)
	}
}

// A turn may write files: when it ends, the picker asks for the paths of
// the word being typed again rather than showing what it had; an answer
// that was on its way still goes to the picker, never the transcript.
func TestAtPickerAsksAgainAfterATurn(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.CommandsEvent{Commands: append(testCommands(), protocol.CommandInfo{Name: "files", Args: "[QUERY]", Summary: "paths", Immediate: true})})
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test")
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "make a file"})
	d.typeText("@n")
	for _, q := range []string{"/files", "/files n"} {
		if op := s.nextOp(t); op != (protocol.Command{Line: q}) {
			t.Fatalf("op = %#v, want %s", op, q)
		}
	}
	s.emit(protocol.CommandResultEvent{Command: "files", Line: "/files", Output: "notes/"},
		protocol.DoneEvent{})
	if op := s.nextOp(t); op != (protocol.Command{Line: "/files n"}) {
		t.Fatalf("op = %#v, want /files n again", op)
	}
	s.emit(protocol.CommandResultEvent{Command: "files", Line: "/files n", Output: "notes/"},
		protocol.CommandResultEvent{Command: "files", Line: "/files n", Output: "new.go\nnotes/"})
	d.waitText(" @new.go", " @notes/", "tab or enter completes")
	d.press("ctrl+u")
	frame := d.waitText("Ask shiro, or type / for commands")
	if strings.Contains(frame, "notes/") {
		t.Fatalf("the picker's answers reached the transcript:\n%s", frame)
	}
}

// A turn that ends while the picker shows keeps it open on what it had
// until the fresh answer comes: a tab pressed in between completes rather
// than falling through to a closed picker (TestShiroInTmux lost its tab
// that way when the turn's end reached the view after its text).
func TestAtPickerStaysOpenWhileItAsksAgain(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.CommandsEvent{Commands: append(testCommands(), protocol.CommandInfo{Name: "files", Args: "[QUERY]", Summary: "paths", Immediate: true})})
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test")
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "review"})
	d.typeText("@s")
	for _, q := range []string{"/files", "/files s"} {
		if op := s.nextOp(t); op != (protocol.Command{Line: q}) {
			t.Fatalf("op = %#v, want %s", op, q)
		}
	}
	s.emit(protocol.CommandResultEvent{Command: "files", Line: "/files s", Output: "src/"})
	d.waitText(" @src/", "tab or enter completes")
	s.emit(protocol.DoneEvent{})
	if op := s.nextOp(t); op != (protocol.Command{Line: "/files s"}) {
		t.Fatalf("op = %#v, want /files s again", op)
	}
	d.press("tab")
	d.waitText("› @src/")
}

// tmux pastes with CR line breaks (and Windows text has CR LF): a long
// paste of either kind folds by its lines like one with LF, and what is
// sent has every line, with LF breaks as a short paste gets them.
func TestCRPastesFold(t *testing.T) {
	for name, br := range map[string]string{"CR": "\r", "CRLF": "\r\n"} {
		t.Run(name, func(t *testing.T) {
			s := newFakeSession(t)
			d := startDriver(t, s, Options{})
			var paste, want strings.Builder
			for i := range 20 {
				fmt.Fprintf(&paste, "row %d%s", i, br)
				fmt.Fprintf(&want, "row %d\n", i)
			}
			d.send(tea.PasteMsg{Content: paste.String()})
			d.waitText("› [pasted 20 lines]")
			d.press("enter")
			// The input's trailing line break is not sent.
			if op := s.nextOp(t); op != (protocol.UserTurn{Text: strings.TrimSuffix(want.String(), "\n")}) {
				t.Fatalf("op = %q", fmt.Sprint(op))
			}
			d.send(tea.PasteMsg{Content: "a" + br + "b" + br + "c"})
			d.press("enter")
			if op := s.nextOp(t); op != (protocol.UserTurn{Text: "a\nb\nc"}) {
				t.Fatalf("short paste sent as %q", fmt.Sprint(op))
			}
		})
	}
}

// The session answers each /files line on its own goroutine, so answers
// can come out of order: an older query's answer that arrives after the
// current one's must not take its place (the picker closed, and nothing
// asked again: TestShiroInTmux lost its picker under load that way).
func TestALateAnswerToAnOlderQueryIsDropped(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.CommandsEvent{Commands: append(testCommands(), protocol.CommandInfo{Name: "files", Args: "[QUERY]", Summary: "paths", Immediate: true})})
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test")
	d.typeText("look at @sr")
	for _, q := range []string{"/files", "/files s", "/files sr"} {
		if op := s.nextOp(t); op != (protocol.Command{Line: q}) {
			t.Fatalf("op = %#v, want %s", op, q)
		}
	}
	s.emit(protocol.CommandResultEvent{Command: "files", Line: "/files sr", Output: "src/"},
		protocol.CommandResultEvent{Command: "files", Line: "/files s", Output: "stale/"},
		protocol.CommandResultEvent{Command: "files", Line: "/files", Output: "top/"})
	d.waitModel("every answer taken", func(m *model) bool { return len(m.mention.asked) == 0 })
	frame := d.waitText(" @src/", "tab or enter completes")
	if strings.Contains(frame, "stale/") || strings.Contains(frame, "top/") {
		t.Fatalf("an older query's answer shows:\n%s", frame)
	}
}
