package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// waitLimit bounds a failure only; a passing test never waits it out.
const waitLimit = time.Minute

// openIn opens a session in work with home as SHIRO_HOME and HOME, on the
// fake server as custom-openai with a key, attended so asks reach events.
func openIn(t *testing.T, work, home string, srv *llmtest.Server, yolo bool) *app.App {
	t.Helper()
	env := map[string]string{"SHIRO_HOME": home, "HOME": home, "SHIRO_API_KEY": "test-key"}
	loaded, err := app.Load(func(k string) string { return env[k] }, work,
		// No sandbox: its helper is not part of this test binary.
		config.Flags{Provider: "custom-openai", BaseURL: srv.URL, Model: "test-model", Sandbox: "off"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: yolo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func mkfile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call runs one tool of the session's registry directly, as the model's
// call would run after the gate.
func call(t *testing.T, a *app.App, name, input string) (string, error) {
	t.Helper()
	tl, ok := a.Tools.Get(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	p, err := tl.Prepare(json.RawMessage(input))
	if err != nil {
		return "", err
	}
	res, err := p.Run(t.Context(), tool.Runtime{CallID: "c"})
	return res.Output, err
}

// A skill in ~/.claude/skills loads; the skill tool names its folder, the
// read tools read its files there, outside the workspace, and nothing can
// write there or read beside it.
func TestClaudeSkillFolderIsReadableOnly(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	folder := filepath.Join(home, ".claude", "skills", "pdf")
	mkfile(t, filepath.Join(folder, "SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms.\n---\nRun scripts/fill.py on the form.\n")
	mkfile(t, filepath.Join(folder, "scripts", "fill.py"), "print('filled')\n")
	mkfile(t, filepath.Join(home, "secret.txt"), "not for the model\n")
	mkfile(t, filepath.Join(work, ".claude", "skills", "review", "SKILL.md"), "---\nname: review\ndescription: Review.\n---\nLook closely.\n")
	a := openIn(t, work, home, llmtest.New(t), false)

	if out := app.DescribeSkills(a); !strings.Contains(out, "pdf") || !strings.Contains(out, "claude-user") || !strings.Contains(out, "claude-project") {
		t.Fatalf("skills:\n%s", out)
	}
	out, err := call(t, a, "skill", `{"name":"pdf"}`)
	if err != nil || !strings.Contains(out, "in the folder "+folder) {
		t.Fatalf("skill: %q, %v", out, err)
	}
	script := filepath.Join(folder, "scripts", "fill.py")
	if out, err := call(t, a, "read_file", `{"path":"`+script+`"}`); err != nil || !strings.Contains(out, "print('filled')") {
		t.Fatalf("read_file: %q, %v", out, err)
	}
	if _, err := call(t, a, "write_file", `{"path":"`+script+`","content":"pwned\n"}`); err == nil {
		t.Fatal("wrote into a skill folder")
	}
	if b, _ := os.ReadFile(script); string(b) != "print('filled')\n" {
		t.Fatalf("the script changed: %q", b)
	}
	if out, err := call(t, a, "read_file", `{"path":"`+filepath.Join(home, "secret.txt")+`"}`); err == nil {
		t.Fatalf("read beside the skill folder: %q", out)
	}
}

// lastRequest is the body of the last model call.
func lastRequest(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	calls := srv.ModelCalls()
	if len(calls) == 0 {
		t.Fatal("no model call")
	}
	return string(calls[len(calls)-1].Body)
}

// A custom command from .claude/commands runs with its argument: its
// !`cmd` runs as a bash call through the gate, and the prompt that
// reaches the model is the expanded body.
func TestClaudeCommandRunsWithItsArgument(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(work, ".claude", "commands", "git", "review.md"),
		"---\ndescription: Review a file\nargument-hint: [file]\n---\nReview $ARGUMENTS.\nBranch: !`echo on-main`\n")
	mkfile(t, filepath.Join(work, "src", "a.go"), "package a\n")
	srv := llmtest.New(t, llmtest.Reply{Text: "Looks fine."})
	a := openIn(t, work, home, srv, true)
	if _, err := a.Session.Submit(protocol.Command{Line: "/git:review src/a.go"}); err != nil {
		t.Fatal(err)
	}
	var listed, ranShell bool
	var started string
	deadline := time.After(waitLimit)
	for done := false; !done; {
		select {
		case e := <-a.Session.Events():
			switch e := e.(type) {
			case protocol.CommandsEvent:
				for _, c := range e.Commands {
					listed = listed || (c.Name == "git:review" && c.Args == "[file]")
				}
			case protocol.ToolResultEvent:
				ranShell = ranShell || strings.Contains(e.Output, "on-main")
			case protocol.TurnStartEvent:
				started = e.Text
			case protocol.CommandResultEvent:
				if e.Error != "" {
					t.Fatalf("the command failed: %s", e.Error)
				}
			case protocol.DoneEvent:
				done = true
			}
		case <-deadline:
			t.Fatal("the command's turn never ended")
		}
	}
	if !listed || !ranShell || !strings.HasPrefix(started, "Review src/a.go.\nBranch: ") || !strings.Contains(started, "on-main") {
		t.Fatalf("listed %v, ran %v, turn %q", listed, ranShell, started)
	}
	if body := lastRequest(t, srv); !strings.Contains(body, "Review src/a.go.") || !strings.Contains(body, "on-main") {
		t.Fatalf("request: %s", body)
	}
}

// @path attaches the file to what the model reads; the turn shows what was
// typed, and /files lists the workspace for the picker.
func TestAtPathAttachesTheFile(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(work, "notes", "plan.md"), "step one\nstep two\n")
	mkfile(t, filepath.Join(work, ".gitignore"), "build/\n")
	mkfile(t, filepath.Join(work, "build", "out.md"), "ignored\n")
	srv := llmtest.New(t, llmtest.Reply{Text: "Read it."})
	a := openIn(t, work, home, srv, false)
	var started string
	var notices []string
	for e := range a.Session.Send(t.Context(), "summarise @notes/plan.md please") {
		switch e := e.(type) {
		case protocol.TurnStartEvent:
			started = e.Text
		case protocol.NoticeEvent:
			notices = append(notices, e.Text)
		}
	}
	if started != "summarise @notes/plan.md please" || !strings.Contains(strings.Join(notices, "\n"), "attached notes/plan.md (2 lines, 18 B)") {
		t.Fatalf("turn %q, notices %q", started, notices)
	}
	if body := lastRequest(t, srv); !strings.Contains(body, `=== notes/plan.md (2 lines) ===\nstep one\nstep two`) {
		t.Fatalf("request: %s", body)
	}
	// A redrawn conversation (/undo, shiro -c) shows the prompt as typed
	// and names the file, rather than drawing its content inline.
	if err := a.Owner().Resume(a.Session.ID(), a.Owner().History()); err != nil {
		t.Fatal(err)
	}
	var hist protocol.HistoryEvent
	for hist.Messages == nil {
		if e, ok := (<-a.Session.Events()).(protocol.HistoryEvent); ok {
			hist = e
		}
	}
	if m := hist.Messages[0]; m.Text != "summarise @notes/plan.md please" || !slices.Equal(m.Attached, []string{"notes/plan.md"}) {
		t.Fatalf("the history shows the prompt as %q, attached %q", m.Text, m.Attached)
	}
	out, err := commandOutput(t, a, "/files pla")
	if err != nil || out != "notes/plan.md" {
		t.Fatalf("/files: %q, %v", out, err)
	}
	if out, _ := commandOutput(t, a, "/files out"); out != "" {
		t.Fatalf("/files lists an ignored file: %q", out)
	}
}

// commandOutput runs an immediate command and returns its result.
func commandOutput(t *testing.T, a *app.App, line string) (string, error) {
	t.Helper()
	if _, err := a.Session.Submit(protocol.Command{Line: line}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(waitLimit)
	for {
		select {
		case e := <-a.Session.Events():
			if r, ok := e.(protocol.CommandResultEvent); ok && r.Line == line {
				if r.Error != "" {
					return r.Output, &commandError{r.Error}
				}
				return r.Output, nil
			}
		case <-deadline:
			t.Fatalf("no result for %s", line)
		}
	}
}

type commandError struct{ msg string }

func (e *commandError) Error() string { return e.msg }

// A custom command file that cannot load is a problem, told at start.
func TestBadCommandFileIsAProblem(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(work, ".shiro", "commands", "clear.md"), "Clear everything\n")
	a := openIn(t, work, home, llmtest.New(t), false)
	var found bool
	for _, p := range a.Problems() {
		found = found || (p.Kind == "command" && strings.Contains(p.String(), "/clear is a built-in command"))
	}
	if !found {
		t.Fatalf("problems = %v", a.Problems())
	}
}

// /diagnostics runs the person's check in the background: its output is
// shown to the front end when it ends, and the model never reads it.
func TestDiagnosticsOutputNeverReachesTheModel(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	srv := llmtest.New(t, llmtest.Reply{Text: "Hi."})
	a := openIn(t, work, home, srv, false)
	if out, err := commandOutput(t, a, "/diagnostics run echo diag-$((6*7))"); err != nil || !strings.Contains(out, "running") {
		t.Fatalf("/diagnostics run: %q, %v", out, err)
	}
	deadline := time.After(waitLimit)
	for shown := false; !shown; {
		select {
		case e := <-a.Session.Events():
			if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "diagnostics" {
				shown = strings.Contains(r.Output, "diag-42")
			}
		case <-deadline:
			t.Fatal("the check's report never came")
		}
	}
	for range a.Session.Send(t.Context(), "hello") {
	}
	if body := lastRequest(t, srv); strings.Contains(body, "diag-42") {
		t.Fatalf("the model read the check's output: %s", body)
	}
}

// An `@~/.claude/…` import in CLAUDE.md reaches the model, as /context
// says it was read: both read the instructions with the home directory.
func TestAHomeImportReachesTheModelAsContextSays(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(work, "CLAUDE.md"), "Follow @~/.claude/house-style.md\n")
	mkfile(t, filepath.Join(home, ".claude", "house-style.md"), "Name tests as sentences.\n")
	srv := llmtest.New(t, llmtest.Reply{Text: "Noted."})
	a := openIn(t, work, home, srv, false)
	for range a.Session.Send(t.Context(), "hello") {
	}
	if body := lastRequest(t, srv); !strings.Contains(body, "Name tests as sentences.") {
		t.Errorf("the imported file is not in the request: %s", body)
	}
	out, err := commandOutput(t, a, "/context")
	if err != nil || !strings.Contains(out, "house-style.md") {
		t.Errorf("/context: %q, %v", out, err)
	}
}

// The check named by config's `diagnostics` (the TypeScript original's
// key) starts with the session, without /diagnostics run.
func TestConfigsDiagnosticsCheckStartsWithTheSession(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(home, ".shiro-neko", "config.json"), `{"diagnostics": {"command": "echo started-$((6*7))", "auto": true}}`)
	a := openIn(t, work, home, llmtest.New(t), false)
	deadline := time.After(waitLimit)
	for shown := false; !shown; {
		select {
		case e := <-a.Session.Events():
			if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "diagnostics" {
				shown = strings.Contains(r.Output, "started-42")
			}
		case <-deadline:
			t.Fatal("the configured check never reported")
		}
	}
	if out, err := commandOutput(t, a, "/diagnostics status"); err != nil || !strings.Contains(out, "echo started") {
		t.Fatalf("/diagnostics status: %q, %v", out, err)
	}
}
