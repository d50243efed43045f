package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

var spinnerFrame = regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (working|waiting for you|stopping) [0-9ms]+ `)

// normalize replaces what changes from run to run (the temporary path, the
// spinner and the elapsed time) so a frame can be compared with a golden
// file.
func normalize(frame, work string) string {
	frame = strings.ReplaceAll(frame, work, "$WORK")
	return spinnerFrame.ReplaceAllString(frame, "* $1 Ns ")
}

// userTurns are the user messages the session stored, in order.
func userTurns(a *testAgent) []string {
	var out []string
	for _, msg := range a.History() {
		if msg.Role == llm.RoleUser {
			out = append(out, msg.PlainText())
		}
	}
	return out
}

// A prompt typed into the input runs a full turn in a real session: the
// welcome comes from the session's description, the reasoning folds to one
// line, the answer is rendered as markdown and the status line counts the
// tokens of the turn's DoneEvent.
func TestPromptRunsATurnAndRendersMarkdown(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "turn.jsonl"})
	d := startDriver(t, a.Owner, Options{})
	d.waitText("shiro · replay · replay", "Ask shiro")
	d.submit("hello there")
	frame := d.waitDone(1)
	for _, want := range []string{"› hello there", "∴ thought (1 line, ctrl-r to show)", "Hello! I am shiro.", "• read code",
		"• edit files", "replay · agent default · think medium · ↑5.2k ↓40 · cache 58%"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "**shiro**") {
		t.Errorf("the finished answer still shows markdown syntax:\n%s", frame)
	}
	golden.RequireEqual(t, normalize(frame, a.work))

	d.press("ctrl+r")
	d.waitText("│ Greet, then list what I can do.")
}

// While text streams it is shown raw; once the block ends it is rendered.
func TestStreamingTextIsRawUntilTheBlockEnds(t *testing.T) {
	p := newGatedProvider([]llm.StreamPart{
		llm.TextDelta{Text: "Some **bold"}, gate{}, llm.TextDelta{Text: " words** here."}, finish(10, 5),
	})
	a := startAgent(t, agentOpts{provider: p})
	d := startDriver(t, a.Owner, Options{})
	d.submit("go")
	d.waitText("Some **bold", "working")
	p.release <- struct{}{}
	frame := d.waitDone(1)
	if !strings.Contains(frame, "Some bold words here.") || strings.Contains(frame, "**") {
		t.Fatalf("the finished block is not rendered:\n%s", frame)
	}
}

// writeFileApproval starts a turn whose write_file call waits at the
// approval prompt, over a file that holds "hello\nworld\n".
func writeFileApproval(t *testing.T) (*testAgent, *tap, *driver, string) {
	t.Helper()
	a := startAgent(t, agentOpts{cassette: "write.jsonl", ask: []string{"write_file"},
		tools: func(work string) []tool.Tool { return []tool.Tool{writeTool(work)} }})
	target := filepath.Join(a.work, "notes", "hello.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tp := newTap(a.Owner)
	d := startDriver(t, tp, Options{})
	d.submit("change the note")
	d.waitText("write_file wants to run", "-world", "+shiro")
	return a, tp, d, target
}

// answerOf is the decision of the one Approval op among ops.
func answerOf(t *testing.T, ops []protocol.Op) protocol.Decision {
	t.Helper()
	var found []protocol.Approval
	for _, op := range ops {
		if a, ok := op.(protocol.Approval); ok {
			found = append(found, a)
		}
	}
	if len(found) != 1 || found[0].ID == "" {
		t.Fatalf("want one answered approval, ops = %#v", ops)
	}
	return found[0].Decision
}

// The approval prompt shows the diff the tool computed; y runs the call.
func TestApprovalShowsDiffAndYAllowsOnce(t *testing.T) {
	a, tp, d, target := writeFileApproval(t)
	frame := d.waitText(`y allow once | a always allow write_file "*" | n deny`)
	for _, want := range []string{"--- a/notes/hello.txt", "+++ b/notes/hello.txt", "@@ -1,2 +1,2 @@", " hello"} {
		if !strings.Contains(frame, want) {
			t.Errorf("prompt lacks %q:\n%s", want, frame)
		}
	}
	golden.RequireEqual(t, normalize(frame, a.work))
	d.press("y")
	frame = d.waitDone(1)
	for _, want := range []string{"● write_file notes/hello.txt", "Wrote 12 chars to notes/hello.txt", "Finished."} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "hello\nshiro\n" {
		t.Fatalf("file after y = %q, %v", got, err)
	}
	if d := answerOf(t, tp.submitted()); d != protocol.Yes {
		t.Fatalf("answer = %s", d)
	}
}

// n denies: the file is untouched and the transcript says who denied it.
func TestApprovalNDenies(t *testing.T) {
	_, tp, d, target := writeFileApproval(t)
	d.press("n")
	frame := d.waitDone(1)
	if !strings.Contains(frame, "⊘ write_file notes/hello.txt\n  ⎿ denied by user: User denied this tool call.") {
		t.Fatalf("no denial line:\n%s", frame)
	}
	if got, _ := os.ReadFile(target); string(got) != "hello\nworld\n" {
		t.Fatalf("file changed after a denial: %q", got)
	}
	if d := answerOf(t, tp.submitted()); d != protocol.No {
		t.Fatalf("answer = %s", d)
	}
}

// a answers `always`: the note names what was granted, and the same call
// in the next turn is not asked about again.
func TestApprovalAGrantsForTheSession(t *testing.T) {
	p := newGatedProvider(
		[]llm.StreamPart{llm.ToolCallDone{ID: "w1", Name: "write_file", Input: []byte(`{"path":"a.txt","content":"one\n"}`)}, finish(10, 5)},
		[]llm.StreamPart{llm.TextDelta{Text: "First."}, finish(10, 5)},
		[]llm.StreamPart{llm.ToolCallDone{ID: "w2", Name: "write_file", Input: []byte(`{"path":"a.txt","content":"two\n"}`)}, finish(10, 5)},
		[]llm.StreamPart{llm.TextDelta{Text: "Second."}, finish(10, 5)},
	)
	a := startAgent(t, agentOpts{provider: p, ask: []string{"write_file"},
		tools: func(work string) []tool.Tool { return []tool.Tool{writeTool(work)} }})
	tp := newTap(a.Owner)
	d := startDriver(t, tp, Options{})
	d.submit("write one")
	d.waitText("write_file wants to run")
	d.press("a")
	d.waitDone(1)
	d.waitText(`✓ always allowing write_file "*" for this session`, "First.")
	d.submit("write two")
	d.waitDone(2)
	if got, _ := os.ReadFile(filepath.Join(a.work, "a.txt")); string(got) != "two\n" {
		t.Fatalf("file = %q", got)
	}
	if d := answerOf(t, tp.submitted()); d != protocol.Always {
		t.Fatalf("answer = %s", d)
	}
}

// A file that does not exist yet is announced as new and diffed against
// nothing; esc at the prompt denies.
func TestApprovalPreviewForANewFile(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "write.jsonl", ask: []string{"write_file"},
		tools: func(work string) []tool.Tool { return []tool.Tool{writeTool(work)} }})
	d := startDriver(t, a.Owner, Options{})
	d.submit("write it")
	d.waitText("new file notes/hello.txt", "--- /dev/null", "@@ -0,0 +1,2 @@", "+hello", "+shiro")
	d.press("esc")
	frame := d.waitDone(1)
	if !strings.Contains(frame, "denied by user") {
		t.Fatalf("esc did not deny:\n%s", frame)
	}
	if _, err := os.Stat(filepath.Join(a.work, "notes", "hello.txt")); !os.IsNotExist(err) {
		t.Fatalf("file exists after esc at the prompt: %v", err)
	}
}

// Esc interrupts the running turn and the session drops the queue; the
// session is usable afterwards.
func TestEscAbortsTheTurnAndClearsTheQueue(t *testing.T) {
	p := newGatedProvider(
		[]llm.StreamPart{llm.TextDelta{Text: "Thinking hard"}, gate{}, finish(10, 5)},
		[]llm.StreamPart{llm.TextDelta{Text: "Second answer."}, finish(10, 5)},
	)
	a := startAgent(t, agentOpts{provider: p})
	tp := newTap(a.Owner)
	d := startDriver(t, tp, Options{})
	d.submit("first")
	d.waitText("Thinking hard", "working")
	d.submit("queued one")
	d.waitText("queued 1: queued one", "(sent when the turn ends; esc drops the queue)")
	d.press("esc")
	frame := d.waitDone(1)
	if !strings.Contains(frame, "· interrupted; dropped 1 queued input") || strings.Contains(frame, "queued 1:") {
		t.Fatalf("after esc:\n%s", frame)
	}
	d.submit("again")
	frame = d.waitDone(2)
	if !strings.Contains(frame, "Second answer.") {
		t.Fatalf("the next turn did not run:\n%s", frame)
	}
	if got := userTurns(a); !reflect.DeepEqual(got, []string{"first", "again"}) {
		t.Fatalf("turns the session ran: %q", got)
	}
	want := []protocol.Op{protocol.UserTurn{Text: "first"}, protocol.UserTurn{Text: "queued one"}, protocol.Interrupt{}, protocol.UserTurn{Text: "again"}}
	if got := tp.submitted(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v", got)
	}
}

// Input sent during a turn is queued by the session and shown as queued
// until its turn starts; a command that runs at once does so meanwhile,
// and a settings change applies when the turn ends.
func TestQueuedInputReplaysInOrder(t *testing.T) {
	p := newGatedProvider(
		[]llm.StreamPart{llm.TextDelta{Text: "one"}, gate{}, finish(10, 5)},
		[]llm.StreamPart{llm.TextDelta{Text: "two"}, finish(10, 5)},
		[]llm.StreamPart{llm.TextDelta{Text: "three"}, finish(10, 5)},
	)
	a := startAgent(t, agentOpts{provider: p, commands: sessionCommands})
	d := startDriver(t, a.Owner, Options{})
	d.submit("first")
	d.waitText("one", "working")
	d.submit("second")
	d.submit("/agent quick")
	d.submit("third")
	d.waitText("queued 1: second", "queued 2: third", "› /agent quick", "agent is quick from the next turn")
	d.submit("/cost")
	d.waitText("tokens: 0 in, 0 out")
	p.release <- struct{}{}
	frame := d.waitDone(3)
	if strings.Contains(frame, "queued") {
		t.Fatalf("the queue is still shown:\n%s", frame)
	}
	if got := userTurns(a); !reflect.DeepEqual(got, []string{"first", "second", "third"}) {
		t.Fatalf("turns ran in order %q", got)
	}
	d.waitModel("the new agent in the status line", func(m *model) bool { return m.info.Agent == "quick" })
	d.waitText("agent quick · think off")
}

// A command that waits for the running turn is shown queued until its
// result arrives; a /clear that succeeded clears the transcript, one that
// failed leaves it.
func TestQueuedCommandAndClear(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "hi"}, protocol.TextEvent{Text: "Hello there."})
	d.waitText("Hello there.", "working")
	d.submit("/clear")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/clear"}) {
		t.Fatalf("op = %#v", op)
	}
	d.waitText("queued 1: /clear")
	s.emit(protocol.DoneEvent{}, protocol.CommandResultEvent{Command: "clear", Error: "a turn is running; wait for it to end"})
	frame := d.waitText("! a turn is running; wait for it to end")
	if !strings.Contains(frame, "Hello there.") || !strings.Contains(frame, "› /clear") || strings.Contains(frame, "queued 1:") {
		t.Fatalf("a failed /clear changed the transcript:\n%s", frame)
	}
	d.submit("/clear")
	s.nextOp(t)
	s.emit(protocol.CommandResultEvent{Command: "clear", Output: "cleared: the conversation starts over"})
	frame = d.waitText("cleared: the conversation starts over")
	if strings.Contains(frame, "Hello there.") {
		t.Fatalf("transcript not cleared:\n%s", frame)
	}
}

// The menu lists the session's commands and the UI's own, filters by
// prefix with the exact match first, and tab completes; /help lists the
// same commands and the keys, without asking the session.
func TestSlashMenuFiltersAndHelp(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.typeText("/")
	d.waitText("/help", "/agent [name]", "1 of 12")
	for range 11 {
		d.press("down")
	}
	d.waitText("/exit", "12 of 12")
	d.typeText("mo")
	frame := d.waitText("› /mo", "/model [id]", "/models")
	if strings.Contains(frame, "list commands and keys") || strings.Contains(frame, "/cost") {
		t.Fatalf("menu not filtered by /mo:\n%s", frame)
	}
	d.typeText("dels")
	d.press("backspace") // "/model": the exact match comes first
	d.waitFor("/model highlighted first", func(f string) bool {
		i, j := strings.Index(f, " /model [id]"), strings.Index(f, " /models ")
		return i >= 0 && j > i
	})
	d.press("tab")
	d.waitText("› /model ")
	d.inspect(func(m *model) {
		if v := m.input.Value(); v != "/model " {
			t.Errorf("tab completed to %q", v)
		}
		m.input.Reset()
		m.afterInputChange()
	})
	d.submit("/help")
	d.waitText("Keys:", "ctrl-r", "show or hide the model's reasoning", "Typing while a turn runs queues the input")
	// The panel is taller than the screen: pgup shows its start.
	d.press("pgup")
	frame = d.waitText("Commands:", "/bash [list | stop ID | stop newest | stop all]", "more lines below")
	if !regexp.MustCompile(`/help +list commands and keys \(also /\?\)`).MatchString(frame) {
		t.Fatalf("/help has no row for itself:\n%s", frame)
	}
	if ops := s.submitted(); len(ops) != 0 {
		t.Fatalf("the UI's own commands reached the session: %#v", ops)
	}
}

// Every other command goes to the session as typed; its output shows as a
// note and its error as an error.
func TestSessionCommandsRenderTheirResults(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.submit("/cost")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/cost"}) {
		t.Fatalf("op = %#v", op)
	}
	s.emit(protocol.CommandResultEvent{Command: "cost", Output: "model: test-model (Test)\nsubagents: none ran this session\n"})
	d.waitText("› /cost", "  model: test-model (Test)\n  subagents: none ran this session")
	d.submit("/frobnicate now")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/frobnicate now"}) {
		t.Fatalf("op = %#v", op)
	}
	s.emit(protocol.CommandResultEvent{Command: "frobnicate", Error: "unknown command /frobnicate: /help lists the commands"})
	d.waitText("! unknown command /frobnicate: /help lists the commands")
}

// A session that refuses input says why; the refused prompt is not shown
// as queued. Notices the session sends at start (load problems, a missing
// API key) show under the welcome.
func TestRefusedInputIsShown(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.NoticeEvent{Text: "no API key for anthropic: set ANTHROPIC_API_KEY and restart shiro"})
	s.refuse = func(op protocol.Op) error {
		if _, ok := op.(protocol.UserTurn); ok {
			return protocol.ErrClosed
		}
		return nil
	}
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test · test-model", "· no API key for anthropic: set ANTHROPIC_API_KEY")
	d.submit("hello")
	d.waitText("! not sent: the session is closed")
	d.inspect(func(m *model) {
		if len(m.pending) != 0 || m.turn != nil {
			t.Errorf("a refused prompt is pending: %+v", m.pending)
		}
	})
}

// /agent and /think change the session's settings (the session says so in
// a new SessionEvent, which the status line follows); /agent without a
// name offers a picker whose choice is submitted as a command; /exit
// quits.
func TestAgentThinkAndExit(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "turn.jsonl", commands: sessionCommands})
	tp := newTap(a.Owner)
	d := startDriver(t, tp, Options{})
	d.submit("/agent plan")
	d.waitText("agent is plan from the next turn", "agent plan · think high")
	d.submit("/think low")
	d.waitText("thinking is low from the next turn", "agent plan · think low")
	d.submit("/agent")
	d.waitText("pick an agent", "› default", "enter choose")
	d.typeText("rev")
	d.press("enter")
	d.waitText("› /agent review", "agent review · think")
	d.submit("/exit")
	d.waitFor("quit", func(string) bool { return d.quitted() })
	want := []protocol.Op{protocol.Command{Line: "/agent plan"}, protocol.Command{Line: "/think low"},
		protocol.Command{Line: "/agent"}, protocol.Command{Line: "/agent review"}}
	if got := tp.submitted(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v", got)
	}
}

// A queued command is answered by the result carrying its op's id alone:
// a result of the same command the session offers unasked (no id) is
// shown and leaves it queued. Matching by name once took that result for
// the queued command's.
func TestQueuedCommandWaitsForItsOwnResult(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "hi"}, protocol.TextEvent{Text: "Hello there."})
	d.waitText("Hello there.", "working")
	d.submit("/init")
	s.nextOp(t)
	d.waitText("queued 1: /init")
	s.emitAsIs(protocol.CommandResultEvent{Command: "init", Output: "offered unasked"})
	frame := d.waitText("offered unasked")
	if !strings.Contains(frame, "queued 1: /init") {
		t.Fatalf("an unasked result took the queued command's place:\n%s", frame)
	}
	s.emit(protocol.DoneEvent{}, protocol.CommandResultEvent{Command: "init", Output: "AGENTS.md written"})
	frame = d.waitText("AGENTS.md written")
	if strings.Contains(frame, "queued 1:") || !strings.Contains(frame, "› /init") {
		t.Fatalf("the command's own result did not answer it:\n%s", frame)
	}
}
