package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/workflow"
)

var (
	spinnerFrame = regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (working|waiting for you|stopping) [0-9ms]+ `)
	boxWrap      = regexp.MustCompile(` *│\n│ `)
)

// unwrapBox joins the lines a prompt box wrapped, so long values can be
// matched whole.
func unwrapBox(frame string) string { return boxWrap.ReplaceAllString(frame, "") }

// normalize replaces what changes from run to run (the temporary path, the
// spinner and the elapsed time) so a frame can be compared with a golden
// file.
func normalize(frame string, env *testEnv) string {
	frame = strings.ReplaceAll(frame, env.work, "$WORK")
	return spinnerFrame.ReplaceAllString(frame, "* $1 Ns ")
}

// A prompt typed into the input runs a full turn through the real app
// (replay provider, gate, tools): the reasoning folds to one line, the
// answer is rendered as markdown and the status line counts the tokens.
func TestPromptRunsATurnAndRendersMarkdown(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.waitText("Ask shiro")
	d.submit("hello there")
	d.waitIdle()
	frame := d.waitText("Hello! I am shiro.", "• read code", "• edit files")
	for _, want := range []string{"› hello there", "∴ thought (1 line, ctrl-r to show)", "↑5.2k ↓40", "cache 58%"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "**shiro**") {
		t.Errorf("the finished answer still shows markdown syntax:\n%s", frame)
	}
	golden.RequireEqual(t, normalize(frame, env))

	d.press("ctrl+r")
	d.waitText("│ Greet, then list what I can do.")
}

// While text streams it is shown raw; once the block ends it is rendered.
func TestStreamingTextIsRawUntilTheBlockEnds(t *testing.T) {
	env := newTestEnv(t)
	p := newGatedProvider([]llm.StreamPart{
		llm.TextDelta{Text: "Some **bold"}, gate{},
		llm.TextDelta{Text: " words** here."},
		llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}},
	})
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), p)
	d := startDriver(t, a, ap, Options{})
	d.submit("go")
	d.waitText("Some **bold", "working")
	p.release <- struct{}{}
	d.waitIdle()
	frame := d.waitText("Some bold words here.")
	if strings.Contains(frame, "**") {
		t.Fatalf("markdown syntax left after the turn:\n%s", frame)
	}
}

func writeFileApproval(t *testing.T) (*testEnv, *driver, string) {
	t.Helper()
	env := newTestEnv(t)
	target := filepath.Join(env.work, "notes", "hello.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, ap := env.open(t, replayFlags(t, "write.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("change the note")
	d.waitText("write_file wants to run", "-world", "+shiro")
	return env, d, target
}

// The approval prompt shows a diff against the file on disk; y runs the
// call.
func TestApprovalShowsDiffAndYAllowsOnce(t *testing.T) {
	env, d, target := writeFileApproval(t)
	frame := d.waitText(`y allow once | a always allow write_file "*" | n deny`)
	for _, want := range []string{"--- a/notes/hello.txt", "+++ b/notes/hello.txt", "@@ -1,2 +1,2 @@", " hello"} {
		if !strings.Contains(frame, want) {
			t.Errorf("prompt lacks %q:\n%s", want, frame)
		}
	}
	golden.RequireEqual(t, normalize(frame, env))
	d.press("y")
	d.waitIdle()
	d.waitText("● write_file notes/hello.txt", "Wrote 12 chars to notes/hello.txt", "Finished.")
	got, err := os.ReadFile(target)
	if err != nil || string(got) != "hello\nshiro\n" {
		t.Fatalf("file after y = %q, %v", got, err)
	}
}

// n denies: the file is untouched and the transcript says who denied it.
func TestApprovalNDenies(t *testing.T) {
	_, d, target := writeFileApproval(t)
	d.press("n")
	d.waitIdle()
	d.waitText("⊘ write_file notes/hello.txt", "denied by user: User denied this tool call.", "Finished.")
	got, _ := os.ReadFile(target)
	if string(got) != "hello\nworld\n" {
		t.Fatalf("file changed after a denial: %q", got)
	}
}

// a grants what the footer named, for the rest of the session.
func TestApprovalAGrantsForTheSession(t *testing.T) {
	_, d, target := writeFileApproval(t)
	d.press("a")
	d.waitIdle()
	d.waitText(`always allowing write_file "*" for this session`, "Finished.")
	if got, _ := os.ReadFile(target); string(got) != "hello\nshiro\n" {
		t.Fatalf("file after a = %q", got)
	}
	d.submit("/permissions")
	d.waitText("granted this session (never saved):", `write_file "*"`)
}

// A file that does not exist yet is announced as new and diffed against
// nothing; a file already holding the content is said to be unchanged.
func TestApprovalPreviewForANewFile(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "write.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("write it")
	d.waitText("new file notes/hello.txt", "@@ -0,0 +1,2 @@", "+hello", "+shiro")
	d.press("esc") // esc at a prompt denies the call
	d.waitIdle()
	d.waitText("denied by user")
	if _, err := os.Stat(filepath.Join(env.work, "notes", "hello.txt")); !os.IsNotExist(err) {
		t.Fatalf("file exists after esc at the prompt: %v", err)
	}
}

// Esc aborts the running turn and drops the queue; the session is usable
// afterwards.
func TestEscAbortsTheTurnAndClearsTheQueue(t *testing.T) {
	env := newTestEnv(t)
	p := newGatedProvider(
		[]llm.StreamPart{llm.TextDelta{Text: "Thinking hard"}, gate{}, llm.Finish{Reason: llm.StopEnd}},
		[]llm.StreamPart{llm.TextDelta{Text: "Second answer."}, llm.Finish{Reason: llm.StopEnd}},
	)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), p)
	d := startDriver(t, a, ap, Options{})
	d.submit("first")
	d.waitText("Thinking hard", "working")
	d.submit("queued one")
	d.waitText("queued 1: queued one")
	d.press("esc")
	d.waitIdle()
	frame := d.waitText("interrupted; dropped 1 queued input")
	if strings.Contains(frame, "queued 1:") {
		t.Fatalf("queue still shown after esc:\n%s", frame)
	}
	d.submit("again")
	d.waitIdle()
	d.waitText("Second answer.")
}

// Input typed during a turn is replayed in order when the turn ends.
func TestQueuedInputReplaysInOrder(t *testing.T) {
	env := newTestEnv(t)
	p := newGatedProvider(
		[]llm.StreamPart{llm.TextDelta{Text: "one"}, gate{}, llm.Finish{Reason: llm.StopEnd}},
		[]llm.StreamPart{llm.TextDelta{Text: "two"}, llm.Finish{Reason: llm.StopEnd}},
		[]llm.StreamPart{llm.TextDelta{Text: "three"}, llm.Finish{Reason: llm.StopEnd}},
	)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), p)
	d := startDriver(t, a, ap, Options{})
	d.submit("first")
	d.waitText("one", "working")
	d.submit("second")
	d.submit("/agent quick")
	d.submit("third")
	d.waitText("queued 1: second", "queued 2: /agent quick", "queued 3: third")
	// /cost only shows something, so it runs at once.
	d.submit("/cost")
	d.waitText("prompt memo")
	p.release <- struct{}{}
	d.waitFor("all three turns", func(f string) bool {
		return strings.Contains(f, "three") && !strings.Contains(f, "working")
	})
	d.waitIdle()
	var order []string
	d.inspect(func(m *model) {
		for _, msg := range m.app.Session.History() {
			if msg.Role == llm.RoleUser {
				order = append(order, msg.PlainText())
			}
		}
		if v := m.app.Session.Config().Variant.Name; v != "quick" {
			t.Errorf("queued /agent quick did not run: agent %s", v)
		}
	})
	if strings.Join(order, ",") != "first,second,third" {
		t.Fatalf("turns ran in order %v", order)
	}
}

// The menu appears on "/", filters by prefix with the exact match first,
// and tab completes; /help lists commands and keys from the same table.
func TestSlashMenuFiltersAndHelp(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.typeText("/")
	d.waitText("/help", "/agent [name]", "1 of 17")
	for range 16 {
		d.press("down")
	}
	d.waitText("/exit", "17 of 17")
	d.typeText("mo")
	frame := d.waitText("› /mo", "/model <id>", "/models")
	if strings.Contains(frame, "list commands and keys") || strings.Contains(frame, "/cost") {
		t.Fatalf("menu not filtered by /mo:\n%s", frame)
	}
	d.typeText("dels")
	d.press("backspace") // "/model": the exact match comes first
	d.waitFor("/model highlighted first", func(f string) bool {
		i, j := strings.Index(f, " /model <id>"), strings.Index(f, " /models ")
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
	d.waitText("Commands:", "/help                            list commands and keys", "more lines below")
}

// /cost reports the session's tokens with the app's cache report (cache
// reads and writes, hit ratio, prompt memo) and says when no subagent ran.
func TestCostCommand(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("hi")
	d.waitIdle()
	d.submit("/cost")
	frame := d.waitText("subagents: none ran this session")
	want := "  model: replay (replay)\n" +
		"  agent: default, thinking medium\n" +
		"  prompt tokens: 5,200 (uncached 1,200, cache write 1,000, cache read 3,000); output 40\n" +
		"  cache hit ratio: 57.7% of prompt tokens read from cache\n" +
		"  " + a.CacheReport().Lines()[2] + "\n" +
		"  subagents: none ran this session"
	if !strings.Contains(frame, want) {
		t.Errorf("/cost:\n%s\nwant:\n%s", frame, want)
	}
	if !strings.Contains(frame, "prompt memo: 0 hits, 1 misses (") {
		t.Errorf("/cost lacks the memo counts:\n%s", frame)
	}
}

// Without an API key the UI starts with a banner naming the variable;
// prompts are refused, commands still work.
func TestMissingKeyBannerRefusesPrompts(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, config.Flags{Provider: "anthropic"}, newGatedProvider())
	d := startDriver(t, a, ap, Options{})
	d.waitText("no API key: set ANTHROPIC_API_KEY")
	d.submit("hello")
	d.waitText("no API key for anthropic: set ANTHROPIC_API_KEY")
	d.inspect(func(m *model) {
		if m.turn != nil || len(m.app.Session.History()) != 0 {
			t.Error("a prompt was sent without a key")
		}
	})
	d.submit("/help")
	d.waitText("Keys:")
}

// /clear empties the transcript and the conversation.
func TestClearResetsTranscriptAndHistory(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("hi")
	d.waitIdle()
	d.waitText("Hello! I am shiro.")
	d.submit("/clear")
	frame := d.waitText("cleared: the conversation starts over")
	if strings.Contains(frame, "Hello! I am shiro.") {
		t.Fatalf("transcript not cleared:\n%s", frame)
	}
	d.inspect(func(m *model) {
		if n := len(m.app.Session.History()); n != 0 {
			t.Errorf("history has %d messages after /clear", n)
		}
	})
}

// /agent and /think change the session and say so; /exit quits.
func TestAgentThinkAndExit(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("/agent plan")
	d.waitText("agent is now plan, thinking high (read-only: ")
	d.submit("/think low")
	d.waitText("thinking is now low (agent plan)", "agent plan · think low")
	d.submit("/agent")
	d.waitText("(current)")
	d.typeText("rev")
	d.press("enter")
	d.waitText("agent is now review")
	d.submit("/model other-model")
	d.waitText("model is now other-model")
	d.submit("/exit")
	d.waitFor("quit", func(string) bool { return d.quitted() })
}

// installHook copies the example hook into the workspace's .shiro/hooks.
func installHook(t *testing.T, env *testEnv, name string) string {
	t.Helper()
	src := filepath.Join("..", "hooks", "testdata", "example-hooks", "no-force-push")
	dir := filepath.Join(env.work, ".shiro", "hooks", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		mode os.FileMode
	}{{"manifest.json", 0o644}, {"run", 0o755}} {
		b, err := os.ReadFile(filepath.Join(src, f.name))
		if err != nil {
			t.Fatal(err)
		}
		if f.name == "manifest.json" {
			b = []byte(strings.Replace(string(b), `"no-force-push"`, `"`+name+`"`, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A pending hook is shown at start with its path, digest and manifest;
// approving it writes that digest to the trust file.
func TestHookApprovalPromptApprovesThePendingHook(t *testing.T) {
	env := newTestEnv(t)
	dir := installHook(t, env, "no-force")
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	status := a.Hooks.Status()
	if len(status) != 1 || status[0].State != hooks.StatePending {
		t.Fatalf("hook status before = %+v", status)
	}
	digest := status[0].Digest
	d := startDriver(t, a, ap, Options{})
	d.waitText("hook no-force is new: approve it to let it run", "sha256: "+digest, `"hook": "pre_tool"`,
		"a approve this digest | s skip")
	d.waitFor("the hook's path", func(f string) bool {
		return strings.Contains(unwrapBox(normalize(f, env)), "path:   $WORK/.shiro/hooks/no-force")
	})
	d.press("a")
	d.waitText("approved hook no-force (sha256 " + digest[:12] + ")")
	trust, err := os.ReadFile(filepath.Join(env.home, ".shiro-neko", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(trust), digest) {
		t.Fatalf("trust file lacks the approved digest %s:\n%s", digest, trust)
	}
	if s := a.Hooks.Status()[0]; s.State != hooks.StateApproved {
		t.Fatalf("hook state after approval = %s", s.State)
	}
	if status[0].Dir != dir {
		t.Errorf("hook dir %s, want %s", status[0].Dir, dir)
	}
}

// Skipping leaves the hook pending; /hooks shows the table and revoke
// withdraws an approval.
func TestHookSkipAndHooksCommand(t *testing.T) {
	env := newTestEnv(t)
	installHook(t, env, "no-force")
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.waitText("hook no-force is new")
	d.press("s")
	d.waitText("skipped hook no-force")
	if s := a.Hooks.Status()[0]; s.State != hooks.StatePending {
		t.Fatalf("hook state after skip = %s", s.State)
	}
	d.submit("/hooks")
	d.waitText("NAME", "no-force", "pre_tool", "pending")
	d.submit("/hooks approve no-force")
	d.waitText("hook no-force is new")
	d.press("a")
	d.waitText("approved hook no-force")
	d.submit("/hooks revoke no-force")
	d.waitText("revoked hook no-force")
	if s := a.Hooks.Status()[0]; s.State != hooks.StatePending {
		t.Fatalf("hook state after revoke = %s", s.State)
	}
}

// /init asks about the tracker files when the project lacks them, writes
// them on yes, and sends the init prompt that says so.
func TestInitOffersTheScaffold(t *testing.T) {
	for _, answer := range []string{"y", "n"} {
		t.Run(answer, func(t *testing.T) {
			env := newTestEnv(t)
			a, ap := env.open(t, replayFlags(t, "init.jsonl"), nil)
			d := startDriver(t, a, ap, Options{})
			d.submit("/init")
			d.waitText("Also create the project workflow files?", "y yes | n no")
			d.press(answer)
			d.waitIdle()
			d.waitText("Wrote AGENTS.md (12 lines).")
			_, err := os.Stat(filepath.Join(env.work, "TODO.md"))
			if (answer == "y") != (err == nil) {
				t.Fatalf("answer %s: TODO.md stat err = %v", answer, err)
			}
			if answer == "y" {
				d.waitText("wrote TODO.md", "wrote ROADMAP.md", "wrote docs/README.md")
			}
			first := a.Session.History()[0].PlainText()
			if first != workflow.InitPrompt(answer == "y") {
				t.Fatalf("init turn sent %q", first)
			}
		})
	}
}

// /registry works on the install directory without the network; a bad
// name is refused with the accepted forms.
func TestRegistryInstalledAndRemove(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("/registry installed")
	d.waitText("nothing is installed from the registry")
	skill := filepath.Join(env.home, ".shiro-neko", "registry", "skills", "tidy.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, []byte("---\nname: tidy\ndescription: keep it tidy\n---\nBe tidy.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.submit("/registry installed")
	d.waitText("skill", "tidy")
	d.submit("/registry remove tidy")
	d.waitText("removed skill tidy")
	if _, err := os.Stat(skill); !os.IsNotExist(err) {
		t.Fatalf("skill still installed: %v", err)
	}
	d.submit("/registry add ../etc")
	d.waitText("usage: /registry add NAME")
}
