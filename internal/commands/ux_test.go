package commands_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/diagnostics"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// The other tests' fakeHost has none of the everyday-use parts.
func (h *fakeHost) Files(context.Context, string, int) ([]string, error) { return nil, nil }
func (h *fakeHost) Setup() commands.Setup                                { return nil }
func (h *fakeHost) Context() commands.ContextReport                      { return commands.ContextReport{} }
func (h *fakeHost) Notes() commands.Notes                                { return nil }
func (h *fakeHost) Complete(context.Context, string, string) (string, error) {
	return "", errors.New("no model here")
}
func (h *fakeHost) Diagnostics() *diagnostics.Runner         { return nil }
func (h *fakeHost) CommandSources() []commands.CommandSource { return nil }
func (h *fakeHost) ShellTool() string                        { return "" }

// uxHost sets the everyday-use parts a test needs.
type uxHost struct {
	*fakeHost
	sources []commands.CommandSource
	shell   string
	files   func(query string) []string
	setup   commands.Setup
	notes   commands.Notes
	answer  string
	diag    *diagnostics.Runner
	report  commands.ContextReport
}

func (h *uxHost) CommandSources() []commands.CommandSource { return h.sources }
func (h *uxHost) ShellTool() string                        { return h.shell }
func (h *uxHost) Setup() commands.Setup                    { return h.setup }
func (h *uxHost) Notes() commands.Notes                    { return h.notes }
func (h *uxHost) Diagnostics() *diagnostics.Runner         { return h.diag }
func (h *uxHost) Context() commands.ContextReport          { return h.report }
func (h *uxHost) Files(_ context.Context, q string, limit int) ([]string, error) {
	out := h.files(q)
	return out[:min(limit, len(out))], nil
}
func (h *uxHost) Complete(_ context.Context, system, prompt string) (string, error) {
	if !strings.Contains(prompt, "[fact]") {
		return "", errors.New("the prompt lacks the entries")
	}
	return h.answer, nil
}

// allowRules allows every call.
type allowRules struct{}

func (allowRules) Check(q permission.Query) permission.Result {
	return permission.Result{Decision: permission.Allow, Tool: q.Tool, Source: permission.SourceConfig, Pattern: "*"}
}
func (allowRules) Grant(permission.Query) []string        { return nil }
func (allowRules) GrantPreview(permission.Query) []string { return nil }

type shellIn struct {
	Command string `json:"command"`
}

// shellHost is a host whose session has a shell tool that echoes the
// command lines it runs.
func shellHost(t *testing.T, sources ...commands.CommandSource) (*uxHost, *[]string) {
	t.Helper()
	var ran []string
	sh := tool.New(tool.Def[shellIn]{
		Info: tool.Info{Name: "sh", Description: "run", Set: tool.SetCore, Effect: tool.Runs, Kind: protocol.KindExecute, Subject: tool.CommandSubject},
		Plan: func(in *shellIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Command}, Commands: []string{in.Command}, Title: in.Command}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *shellIn) (tool.Result, error) {
			ran = append(ran, in.Command)
			switch in.Command {
			case "false":
				return tool.Result{}, errors.New("exit: 1")
			case "make lint":
				// As bash words a failed command.
				return tool.Result{Output: "exit: 2\nstdout:\nchecking\nstderr:\nlint: 3 problems",
					Run: &tool.RunOutput{Exit: 2, Stdout: "checking\n", Stderr: "lint: 3 problems"}}, nil
			}
			// As bash words its result: the prompt gets the output alone.
			out := "output of " + in.Command
			return tool.Result{Output: "exit: 0\nstdout:\n" + out, Run: &tool.RunOutput{Stdout: out + "\n"}}, nil
		},
	})
	reg, err := tool.NewRegistry(sh)
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", nil), Model: "m1", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Plugins: plugin.NewHost(), Rules: allowRules{}}, Prompter: prompter{}, Filter: tool.Filter{Sets: tool.DefaultSets()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return &uxHost{fakeHost: &fakeHost{session: s, reg: reg}, sources: sources, shell: "sh"}, &ran
}

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Claude Code's command files run unchanged: namespaced by folder, front
// matter read, arguments substituted, !`cmd` run as a shell tool call of
// the session; the prompt runs on the command's model. A later folder
// overrides an earlier one; a built-in cannot be replaced; a bad file is
// reported.
func TestCustomCommandsFromClaudeFolders(t *testing.T) {
	claudeProject, project := t.TempDir(), t.TempDir()
	write(t, claudeProject, "frontend/review.md", "---\ndescription: Review a component\nargument-hint: [file] [focus]\n"+
		"allowed-tools: Bash(git diff:*), Read\nmodel: small-model\n---\nReview $1 for $2.\nAll: $ARGUMENTS\nDiff: !`git diff $1`\n")
	write(t, claudeProject, "deploy.md", "Deploy from claude\n")
	write(t, project, "deploy.md", "# Deploy it\nShip $ARGUMENTS\n")
	write(t, project, "help.md", "not allowed\n")
	write(t, project, "Bad Name.md", "x\n")
	write(t, project, "empty.md", "---\ndescription: nothing\n---\n\n")
	h, ran := shellHost(t, commands.CommandSource{Dir: claudeProject, Origin: "claude-project"}, commands.CommandSource{Dir: project, Origin: "project"})
	s := commands.New(h, conversationOf(h))

	infos := map[string]protocol.CommandInfo{}
	for _, c := range s.List() {
		infos[c.Name] = c
	}
	review := infos["frontend:review"]
	if review.Args != "[file] [focus]" || review.Summary != "Review a component (claude-project command)" || review.Immediate {
		t.Fatalf("review = %+v", review)
	}
	if infos["deploy"].Summary != "Deploy it (project command)" || infos["help"].Summary == "not allowed" {
		t.Fatalf("deploy = %+v, help = %+v", infos["deploy"], infos["help"])
	}
	if s.Immediate("/frontend:review x") {
		t.Fatal("a custom command runs as a turn, so it waits like one")
	}
	problems := strings.Join(s.CustomProblems(), "\n")
	for _, want := range []string{"help.md: /help is a built-in command", "Bad Name.md: \"Bad Name\" cannot be part of a command name", "empty.md: has no prompt"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}

	out, err := s.Run(t.Context(), "/frontend:review src/app.tsx accessibility")
	if err != nil {
		t.Fatal(err)
	}
	want := "Review src/app.tsx for accessibility.\nAll: src/app.tsx accessibility\nDiff: output of git diff src/app.tsx"
	if out.Prompt != want || out.Model != "small-model" {
		t.Fatalf("outcome = %+v\nwant prompt %q", out, want)
	}
	if !slices.Equal(*ran, []string{"git diff src/app.tsx"}) {
		t.Fatalf("ran %q", *ran)
	}
	if out, _ := s.Run(t.Context(), "/deploy prod"); out.Prompt != "# Deploy it\nShip prod" {
		t.Fatalf("deploy prompt = %q", out.Prompt)
	}
	help, _ := s.Run(t.Context(), "/help")
	if !strings.Contains(help.Output, "Custom commands:\n") || !strings.Contains(help.Output, "/frontend:review [file] [focus]") {
		t.Fatalf("/help:\n%s", help.Output)
	}
}

// A !`cmd` the tool could not run, or that is refused, fails the command:
// no prompt is sent. One that exits non-zero gives its output and a note.
func TestCustomCommandStopsOnAFailedCommand(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "check.md", "Result: !`false`\n")
	write(t, dir, "lint.md", "Fix these:\n!`make lint`\nThen stop.\n")
	write(t, dir, "plain.md", "Say hello to $1 and $3.\n")
	h, _ := shellHost(t, commands.CommandSource{Dir: dir, Origin: "user"})
	s := commands.New(h, conversationOf(h))
	if out, err := s.Run(t.Context(), "/check"); err == nil || out.Prompt != "" || !strings.Contains(err.Error(), "/check: sh false failed: exit: 1") {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	if out, err := s.Run(t.Context(), "/lint"); err != nil || out.Prompt != "Fix these:\nchecking\nlint: 3 problems\n(make lint: exit status 2)\nThen stop." {
		t.Fatalf("outcome %q, err %v", out.Prompt, err)
	}
	h.shell = ""
	if _, err := s.Run(t.Context(), "/check"); err == nil || !strings.Contains(err.Error(), "no tool that runs them") {
		t.Fatalf("without a shell tool: %v", err)
	}
	if out, _ := s.Run(t.Context(), "/plain Ann"); out.Prompt != "Say hello to Ann and ." {
		t.Fatalf("missing positional arguments: %q", out.Prompt)
	}
}

// Refresh picks up a new file and says whether the list changed.
func TestRefreshFindsNewCommands(t *testing.T) {
	dir := t.TempDir()
	h, _ := shellHost(t, commands.CommandSource{Dir: dir, Origin: "user"})
	s := commands.New(h, conversationOf(h))
	if s.Refresh() {
		t.Fatal("nothing changed")
	}
	write(t, dir, "new.md", "---\ndescription: a new one\n---\nbody\n")
	if !s.Refresh() || !slices.ContainsFunc(s.List(), func(c protocol.CommandInfo) bool { return c.Name == "new" }) {
		t.Fatalf("list = %+v", s.List())
	}
}

// fakeSetup records what /provider saves.
type fakeSetup struct {
	env   map[string]string
	saved []string
	asked []commands.Draft
}

func (f *fakeSetup) Presets() []llm.Preset { return llm.Presets() }
func (f *fakeSetup) EnvKey(p llm.Preset) string {
	if f.env[p.EnvKey] != "" {
		return p.EnvKey
	}
	return ""
}
func (f *fakeSetup) Models(_ context.Context, d commands.Draft) ([]string, string, error) {
	f.asked = append(f.asked, d)
	return []string{"m-a", "m-b"}, "", nil
}
func (f *fakeSetup) Save(d commands.Draft, model string) (string, error) {
	f.saved = append(f.saved, d.Preset.ID+" "+d.BaseURL+" "+d.APIKey+d.KeyVar+" "+model)
	return "/home/.shiro-neko/config.json", nil
}

// /provider walks from a preset to a saved model: the base URL for a
// custom preset, the key as a secret field (never echoed back), the
// endpoint's models; an environment key is offered instead of pasting.
func TestProviderSetupSteps(t *testing.T) {
	setup := &fakeSetup{env: map[string]string{"OPENAI_API_KEY": "sk-env"}}
	h := &uxHost{fakeHost: &fakeHost{}, setup: setup}
	s := commands.New(h, conversationOf(h))
	run := func(line string) agent.CommandOutcome {
		t.Helper()
		out, err := s.Run(t.Context(), line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return out
	}
	first := run("/login")
	var lines []string
	for _, c := range first.Choices {
		lines = append(lines, c.Line)
	}
	if !slices.Contains(lines, "/provider custom-openai") || slices.Contains(lines, "/provider replay") {
		t.Fatalf("presets = %q", lines)
	}
	url := run("/provider custom-openai")
	if url.Field == nil || url.Field.Line != "/provider custom-openai url" || url.Field.Secret {
		t.Fatalf("base URL step: %+v", url)
	}
	if _, err := s.Run(t.Context(), "/provider custom-openai url ftp://x"); err == nil {
		t.Fatal("a non-http base URL was accepted")
	}
	key := run("/provider custom-openai url http://127.0.0.1:9/v1/")
	if key.Field == nil || !key.Field.Secret || key.Field.Line != "/provider custom-openai url http://127.0.0.1:9/v1 key" {
		t.Fatalf("key step: %+v", key)
	}
	models := run("/provider custom-openai url http://127.0.0.1:9/v1 key sk-secret")
	if len(models.Choices) != 2 || models.Choices[1].Line != "/provider model m-b" || strings.Contains(models.Line, "sk-secret") ||
		!strings.HasSuffix(models.Line, " key ••••") {
		t.Fatalf("models step: %+v", models)
	}
	for _, c := range models.Choices {
		if strings.Contains(c.Line, "sk-secret") {
			t.Fatalf("the key travels back in a choice: %+v", c)
		}
	}
	saved := run("/provider model m-b")
	if !slices.Equal(setup.saved, []string{"custom-openai http://127.0.0.1:9/v1 sk-secret m-b"}) || !strings.Contains(saved.Output, "Your next message uses it") {
		t.Fatalf("saved %q: %q", setup.saved, saved.Output)
	}
	if _, err := s.Run(t.Context(), "/provider model m-a"); err == nil {
		t.Fatal("a second save without a draft")
	}
	env := run("/provider openai")
	if len(env.Choices) != 1 || env.Choices[0].Line != "/provider openai url https://api.openai.com/v1 key-env" || env.Field == nil {
		t.Fatalf("env key step: %+v", env)
	}
	run("/provider openai url https://api.openai.com/v1 key-env")
	if d := setup.asked[len(setup.asked)-1]; d.KeyVar != "OPENAI_API_KEY" || d.APIKey != "" {
		t.Fatalf("draft = %+v", d)
	}
	local := run("/provider ollama")
	if len(local.Choices) != 1 || !strings.HasSuffix(local.Choices[0].Line, " no-key") {
		t.Fatalf("keyless step: %+v", local)
	}
}

// /files answers with the host's paths, one a line.
func TestFilesListsPaths(t *testing.T) {
	h := &uxHost{fakeHost: &fakeHost{}, files: func(q string) []string { return []string{q + "/a.go", q + "/"} }}
	out, err := commands.New(h, conversationOf(h)).Run(t.Context(), "/files src")
	if err != nil || out.Output != "src/a.go\nsrc/" {
		t.Fatalf("%q, %v", out.Output, err)
	}
}

// fakeNotes is a memory.
type fakeNotes struct {
	list    []commands.Note
	removed []string
	merged  []commands.Note
}

func (n *fakeNotes) List() []commands.Note { return n.list }
func (n *fakeNotes) Compact(ids []string, merged []commands.Note) (int, int, error) {
	n.removed, n.merged = ids, merged
	return len(ids), len(merged), nil
}
func (n *fakeNotes) Forget(text string) ([]commands.Note, error) {
	var gone, kept []commands.Note
	for _, e := range n.list {
		if strings.Contains(strings.ToLower(e.Text), strings.ToLower(text)) {
			gone = append(gone, e)
		} else {
			kept = append(kept, e)
		}
	}
	n.list = kept
	return gone, nil
}

// /memory forget takes entries out by their text: how a learned memory
// that proved wrong goes.
func TestMemoryForget(t *testing.T) {
	n := &fakeNotes{list: []commands.Note{
		{ID: "2", Kind: "command", Text: "install with npm install"},
		{ID: "1", Kind: "fact", Text: "CI runs go 1.26"},
	}}
	h := &uxHost{fakeHost: &fakeHost{}, notes: n}
	s := commands.New(h, conversationOf(h))
	out, err := s.Run(t.Context(), "/memory forget NPM install")
	if err != nil || out.Output != "forgot 1 entry:\n(command) install with npm install" || len(n.list) != 1 {
		t.Fatalf("%q, %v, left %+v", out.Output, err, n.list)
	}
	if out, err := s.Run(t.Context(), "/memory forget pnpm"); err != nil || !strings.Contains(out.Output, `no memory entry holds "pnpm"`) {
		t.Fatalf("%q, %v", out.Output, err)
	}
	if _, err := s.Run(t.Context(), "/memory forget"); err == nil || !strings.Contains(err.Error(), "/memory forget TEXT") {
		t.Fatalf("no text: %v", err)
	}
	if _, err := s.Run(t.Context(), "/memory drop x"); err == nil {
		t.Fatal("an unknown verb was taken")
	}
}

// /notes lists newest first with recall counts; /memory merges the
// unrecalled entries through the model and keeps recalled ones.
func TestNotesAndMemoryCompaction(t *testing.T) {
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	n := &fakeNotes{list: []commands.Note{
		{ID: "3", Kind: "gotcha", Text: "never edit gen/", Hits: 2, Created: day},
		{ID: "2", Kind: "fact", Text: "tests: go test ./...", Created: day},
		{ID: "1", Kind: "fact", Text: "CI runs go 1.26", Created: day},
	}}
	h := &uxHost{fakeHost: &fakeHost{}, notes: n, answer: "Here:\n- [command] go test ./... (CI: go 1.26)\n[nonsense] x\n"}
	s := commands.New(h, conversationOf(h))
	out, _ := s.Run(t.Context(), "/notes")
	if out.Output != "project memory: 3 entries, newest first\n2026-03-04 (gotcha) never edit gen/ [recalled 2x]\n2026-03-04 (fact) tests: go test ./...\n2026-03-04 (fact) CI runs go 1.26" {
		t.Fatalf("/notes:\n%s", out.Output)
	}
	out, err := s.Run(t.Context(), "/memory")
	if err != nil || out.Output != "memory compacted: 2 entries into 1" {
		t.Fatalf("/memory: %q, %v", out.Output, err)
	}
	if !slices.Equal(n.removed, []string{"2", "1"}) || len(n.merged) != 1 || n.merged[0].Kind != "command" {
		t.Fatalf("removed %v, merged %+v", n.removed, n.merged)
	}
	h.answer = "I cannot."
	n.removed = nil
	if out, _ := s.Run(t.Context(), "/memory"); !strings.HasPrefix(out.Output, "memory left as is") || n.removed != nil {
		t.Fatalf("unparseable answer: %q", out.Output)
	}
	if out, _ := commands.New(&uxHost{fakeHost: &fakeHost{}}, conversationOf(&uxHost{fakeHost: &fakeHost{}})).Run(t.Context(), "/notes"); !strings.Contains(out.Output, "memory is off") {
		t.Fatalf("no memory: %q", out.Output)
	}
}

// /diagnostics runs a check in the background and reports how it ended;
// the model is never involved.
func TestDiagnosticsCommand(t *testing.T) {
	env := wstest.Env(t, nil)
	reports := make(chan diagnostics.Report, 2)
	h := &uxHost{fakeHost: &fakeHost{}, diag: diagnostics.New(env, func(r diagnostics.Report) { reports <- r })}
	s := commands.New(h, conversationOf(h))
	if out, _ := s.Run(t.Context(), "/diagnostics"); !strings.Contains(out.Output, "no check set") {
		t.Fatalf("status: %q", out.Output)
	}
	if out, err := s.Run(t.Context(), "/diagnostics run echo checked"); err != nil || !strings.Contains(out.Output, "running echo checked") {
		t.Fatalf("run: %q, %v", out.Output, err)
	}
	select {
	case r := <-reports:
		if got := commands.DiagnosticsReport(r); got != "diagnostics: echo checked passed\nchecked" {
			t.Fatalf("report = %q", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the check never ended")
	}
	if out, _ := s.Run(t.Context(), "/diagnostics on"); !strings.Contains(out.Output, "re-runs after each turn") {
		t.Fatalf("on: %q", out.Output)
	}
	if out, _ := s.Run(t.Context(), "/diagnostics status"); !strings.Contains(out.Output, "auto: on") || !strings.Contains(out.Output, "passed") {
		t.Fatalf("status: %q", out.Output)
	}
	if _, err := s.Run(t.Context(), "/diagnostics sometimes"); err == nil {
		t.Fatal("a bad verb was accepted")
	}
}

// /context lists the files with their sizes and the prompt's split.
func TestContextReport(t *testing.T) {
	h := &uxHost{fakeHost: &fakeHost{}, report: commands.ContextReport{
		Files: []commands.ContextFile{
			{Label: "CLAUDE.md", Bytes: 2048},
			{Label: "docs/style.md", Bytes: 10, ImportedBy: "CLAUDE.md"},
			{Label: "../x.md", ImportedBy: "CLAUDE.md", Skipped: "outside the repository and ~/.claude"},
			{Label: "TODO.md", Bytes: 6000, Tracker: true, Cut: true},
		},
		Stable:      []commands.PromptPart{{Name: "identity, tools and rules", Bytes: 5000}, {Name: "skills catalogue", Bytes: 0}},
		StableBytes: 5000, VolatileBytes: 40, Volatile: []commands.PromptPart{{Name: "task list", Bytes: 40}},
		ReadOnly: []string{"/home/u/.claude/skills/pdf"},
	}}
	out, _ := commands.New(h, conversationOf(h)).Run(t.Context(), "/context")
	for _, want := range []string{
		"CLAUDE.md      instructions           2.0 KB",
		"docs/style.md  imported by CLAUDE.md  10 B",
		"../x.md        imported by CLAUDE.md  skipped: outside the repository and ~/.claude",
		"TODO.md        tracker                5.9 KB (cut)",
		"/home/u/.claude/skills/pdf",
		"system prompt: 4.9 KB, about 1,260 tokens",
		"identity, tools and rules  4.9 KB",
		"task list  40 B",
	} {
		if !strings.Contains(out.Output, want) {
			t.Errorf("/context lacks %q:\n%s", want, out.Output)
		}
	}
	if strings.Contains(out.Output, "skills catalogue") {
		t.Errorf("an empty part is listed:\n%s", out.Output)
	}
}
