package tui

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// hookReview is what the session offers unasked at start when a hook waits
// for approval.
func hookReview() protocol.CommandResultEvent {
	return protocol.CommandResultEvent{Command: "hooks",
		Output: "hook no-force is new: approve it to let it run\npath:   /work/project/.shiro/hooks/no-force\nsha256: 0123456789abcdef\n\nmanifest.json:\n{\"hook\": \"pre_tool\"}\n\nA hook that is not approved blocks the calls it covers.",
		Choices: []protocol.Choice{
			{Label: "approve no-force", Detail: "sha256 0123456789ab", Line: "/hooks approve no-force 0123456789abcdef"},
		}}
}

// Choices offered unasked at start open a picker before anything else:
// the first prompt waits for it, and picking submits the choice's line.
func TestChoicesAtStartComeBeforeTheFirstPrompt(t *testing.T) {
	s := newFakeSession(t)
	s.emit(hookReview())
	d := startDriver(t, s, Options{FirstPrompt: "fix the tests"})
	d.waitText("/hooks", "hook no-force is new: approve it to let it run", `{"hook": "pre_tool"}`,
		"› approve no-force  sha256 0123456789ab", "enter choose | ↑/↓ move | type to filter | esc close")
	if ops := s.submitted(); len(ops) != 0 {
		t.Fatalf("something was sent while the choice was open: %#v", ops)
	}
	d.press("enter")
	want := []protocol.Op{protocol.Command{Line: "/hooks approve no-force 0123456789abcdef"}, protocol.UserTurn{Text: "fix the tests"}}
	if got := []protocol.Op{s.nextOp(t), s.nextOp(t)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v", got)
	}
	d.waitText("› /hooks approve no-force 0123456789abcdef")
}

// Esc closes a picker without choosing: nothing is submitted for it and
// the first prompt goes.
func TestEscClosesAPickerWithoutChoosing(t *testing.T) {
	s := newFakeSession(t)
	s.emit(hookReview())
	d := startDriver(t, s, Options{FirstPrompt: "fix the tests"})
	d.waitText("approve no-force")
	d.press("esc")
	if op := s.nextOp(t); op != (protocol.UserTurn{Text: "fix the tests"}) {
		t.Fatalf("op = %#v", op)
	}
	d.waitText("· /hooks: nothing chosen")
	if ops := s.submitted(); len(ops) != 1 {
		t.Fatalf("ops = %#v", ops)
	}
}

// initCommands is a scripted /init as the real one behaves: without an
// answer it asks whether to write the tracker files; either answer ends
// in a prompt that runs as the next turn.
func initCommands(ref *sessionRef) agent.Commander {
	return &testCommander{cmds: []testCommand{{
		protocol.CommandInfo{Name: "init", Args: "[scaffold | no-scaffold]", Summary: "write AGENTS.md"},
		func(_ context.Context, args string) (agent.CommandOutcome, error) {
			switch args {
			case "scaffold":
				path := filepath.Join(ref.s.Config().Cwd, "TODO.md")
				if err := os.WriteFile(path, []byte("# TODO\n"), 0o644); err != nil {
					return agent.CommandOutcome{}, err
				}
				return agent.CommandOutcome{Output: "wrote TODO.md", Prompt: initPrompt(true)}, nil
			case "no-scaffold":
				return agent.CommandOutcome{Prompt: initPrompt(false)}, nil
			}
			return agent.CommandOutcome{Output: "Also create the project workflow files?", Choices: []protocol.Choice{
				{Label: "yes, create them", Line: "/init scaffold"},
				{Label: "no, only AGENTS.md", Line: "/init no-scaffold"},
			}}, nil
		}}}}
}

func initPrompt(scaffolded bool) string {
	p := "Write AGENTS.md for this project.\nRead the build files first.\nList the commands that build and test it.\nKeep it short."
	if scaffolded {
		p += "\nThe tracker files were just written."
	}
	return p
}

// /init offers its choice in a picker; the chosen line runs in the
// session, and the prompt it queues starts a turn that shows folded.
func TestInitOffersTheScaffold(t *testing.T) {
	for _, scaffold := range []bool{true, false} {
		t.Run(map[bool]string{true: "yes", false: "no"}[scaffold], func(t *testing.T) {
			a := startAgent(t, agentOpts{cassette: "init.jsonl", commands: initCommands})
			d := startDriver(t, a.Owner, Options{})
			d.submit("/init")
			d.waitText("Also create the project workflow files?", "› yes, create them", "  no, only AGENTS.md")
			if !scaffold {
				d.press("down")
			}
			d.press("enter")
			frame := d.waitDone(1)
			if !strings.Contains(frame, "Wrote AGENTS.md (12 lines).") || !strings.Contains(frame, "Write AGENTS.md for this project.") {
				t.Fatalf("the init turn did not show:\n%s", frame)
			}
			if !strings.Contains(frame, "… +") {
				t.Errorf("the long prompt a command sent is not folded:\n%s", frame)
			}
			_, err := os.Stat(filepath.Join(a.work, "TODO.md"))
			if scaffold != (err == nil) {
				t.Fatalf("scaffold %v: TODO.md stat err = %v", scaffold, err)
			}
			if got := userTurns(a); len(got) != 1 || got[0] != initPrompt(scaffold) {
				t.Fatalf("init turn sent %q", got)
			}
		})
	}
}

// Notices the session sends at a turn's start (extensions reloaded) show
// before that turn's prompt.
func TestTurnStartNoticesShow(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "turn.jsonl", beforeTurn: func(context.Context) agent.TurnSetup {
		return agent.TurnSetup{Notices: []string{"reloaded extensions: skill sql-review"}}
	}})
	d := startDriver(t, a.Owner, Options{})
	d.submit("review the migrations")
	frame := d.waitDone(1)
	notice, prompt := strings.Index(frame, "· reloaded extensions: skill sql-review"), strings.Index(frame, "› review the migrations")
	if notice < 0 || prompt < notice {
		t.Fatalf("the notice is missing or after the prompt:\n%s", frame)
	}
}

// The UI's only way to act is Submit: an approval request answered with y
// yields exactly one op, the Approval naming that request.
func TestTheUIOnlySubmitsOps(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "c1", Name: "write_file", Title: "a.txt", Kind: protocol.KindEdit},
		protocol.ApprovalRequestEvent{ID: "approval-3", CallID: "c1", Name: "write_file", Title: "a.txt", Kind: protocol.KindEdit,
			Input: []byte(`{"path":"a.txt","content":"x"}`), Grants: []string{`write_file "*"`}})
	d.waitText("write_file wants to run")
	d.press("y")
	want := []protocol.Op{protocol.Approval{ID: "approval-3", Decision: protocol.Yes}}
	if got := []protocol.Op{s.nextOp(t)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v", got)
	}
	s.emit(protocol.ToolResultEvent{ID: "c1", Name: "write_file", Output: "wrote a.txt"}, protocol.DoneEvent{})
	d.waitDone(1)
	if got := s.submitted(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v", got)
	}
}

// changesPicker is what /changes answers with: a picker that stays open
// after the command.
func changesPicker() protocol.CommandResultEvent {
	return protocol.CommandResultEvent{Command: "changes", Line: "/changes", Output: "2 turns changed files",
		Choices: []protocol.Choice{
			{Label: "turn 2", Detail: "src/a.go", Line: "/diff review 2"},
			{Label: "turn 1", Detail: "README.md", Line: "/diff review 1"},
		}}
}

// A picker does not swallow what is typed next: a / starts a command in
// the input, and text that matches no choice goes to the input whole,
// while text that does match still filters.
func TestTypingPastAPickerReachesTheInput(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(changesPicker())
	d.waitText("› turn 2")
	d.typeText("/diff")
	d.waitText("› /diff", "· /changes: nothing chosen")
	d.press("enter")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/diff"}) {
		t.Fatalf("op = %#v", op)
	}

	s.emit(changesPicker())
	d.waitText("› turn 2")
	d.typeText("turn 1")
	d.waitText("filter: turn 1", "› turn 1")
	d.inspect(func(m *model) {
		if len(m.pickers) != 1 || m.input.Value() != "" {
			t.Errorf("a filter that matches left the picker: pickers %d, input %q", len(m.pickers), m.input.Value())
		}
	})
	d.press("esc")

	s.emit(changesPicker())
	d.waitText("› turn 2")
	d.typeText("tests fail")
	d.waitText("› tests fail")
	d.press("enter")
	if op := s.nextOp(t); op != (protocol.UserTurn{Text: "tests fail"}) {
		t.Fatalf("op = %#v", op)
	}
}
