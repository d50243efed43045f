package workflow

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
)

// repo makes a git repository (a .git directory is all GitRoot needs) with
// the given files, and returns its root with symlinks resolved.
func repo(t *testing.T, files ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		write(t, filepath.Join(root, f), "# "+f+"\n")
	}
	return root
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPolicyCarriesThePlanLine(t *testing.T) {
	root := repo(t, "TODO.md")
	p := Policy(root, "docs")
	if !slices.Contains(strings.Split(p, "\n"), "- before non-trivial work, load the `plan` skill (spec-first) and follow it") {
		t.Fatalf("policy lacks the plan line:\n%s", p)
	}
	if !strings.HasPrefix(p, "# Project workflow\n") || strings.Count(p, "\n- ") != 5 {
		t.Fatalf("policy should be a heading and five bullets:\n%s", p)
	}
}

func TestPolicyOnlyWhenTheProjectTracksProgress(t *testing.T) {
	root := repo(t)
	sub := filepath.Join(root, "pkg", "inner")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if Policy(sub, "docs") != "" || Tracks(sub, "docs") {
		t.Fatal("no tracker files: no policy")
	}
	for _, f := range []string{"ROADMAP.md", "documentation/x.md"} {
		r := repo(t, f)
		if Policy(r, "documentation") == "" {
			t.Errorf("%s at the git root should switch the policy on", f)
		}
	}
	// Checked live: a TODO.md created later switches it on, from a subdirectory too.
	write(t, filepath.Join(root, "TODO.md"), "# TODO\n")
	if !Tracks(sub, "docs") || !strings.Contains(Policy(sub, "notes"), "in notes/") {
		t.Fatal("a TODO.md created mid-session must switch the policy on")
	}
	// Outside git the feature is silent.
	plain := t.TempDir()
	write(t, filepath.Join(plain, "TODO.md"), "x")
	if GitRoot(plain) == "" && Policy(plain, "docs") != "" {
		t.Fatal("outside a repository there is no policy")
	}
}

func wroteTurn(cwd string, files ...string) agent.TurnSummary {
	return agent.TurnSummary{Cwd: cwd, ToolsCalled: []string{"write_file"}, FilesWritten: files}
}

func TestNudgeLadderStopsAfterThree(t *testing.T) {
	root := repo(t, "TODO.md")
	n := NewNudger(nil)
	ctx := context.Background()
	var got []string
	for range 5 {
		got = append(got, n.Ended(ctx, agent.TurnEnd{TurnSummary: wroteTurn(root, "main.go")}).Notices...)
	}
	want := []string{
		"reminder: you modified files without updating the project task list (TODO.md). Keep it current: mark what you did.",
		"still no update to TODO.md. The project expects its task list kept current as you work.",
		"last reminder: update TODO.md when you have a moment. This is the final nudge for this session.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("nudges =\n%q\nwant\n%q", got, want)
	}
	if n.Count() != MaxNudges {
		t.Fatalf("count = %d", n.Count())
	}
}

func TestNoNudgeWhen(t *testing.T) {
	ctx := context.Background()
	tracked := repo(t, "ROADMAP.md")
	cases := map[string]agent.TurnSummary{
		"nothing was written":        {Cwd: tracked, ToolsCalled: []string{"read_file", "bash"}},
		"the turn was interrupted":   {Cwd: tracked, ToolsCalled: []string{"write_file"}, FilesWritten: []string{"a.go"}, Interrupted: true},
		"the turn edited TODO.md":    {Cwd: tracked, ToolsCalled: []string{"edit_file"}, FilesWritten: []string{"a.go", filepath.Join(tracked, "TODO.md")}},
		"the turn edited ROADMAP.md": {Cwd: tracked, ToolsCalled: []string{"edit_file"}, FilesWritten: []string{"./ROADMAP.md"}},
		"no tracker file exists":     wroteTurn(repo(t, "docs/README.md"), "a.go"),
		"outside git":                wroteTurn(t.TempDir(), "a.go"),
	}
	for name, turn := range cases {
		n := NewNudger(nil)
		if got := n.Ended(ctx, agent.TurnEnd{TurnSummary: turn}).Notices; len(got) != 0 || n.Count() != 0 {
			t.Errorf("%s: nudged %q", name, got)
		}
	}
}

// A turn that updated the task list is not nudged, and does not spend a
// rung of the ladder; the list's version tells, not any tool's name.
func TestNudgeSkipsTurnsThatUpdatedTheTaskList(t *testing.T) {
	root := repo(t, "TODO.md")
	var version uint64
	n := NewNudger(func() uint64 { return version })
	ctx := context.Background()
	first := n.Ended(ctx, agent.TurnEnd{TurnSummary: wroteTurn(root, "a.go")}).Notices
	version++ // the task list changed during the next turn
	quiet := n.Ended(ctx, agent.TurnEnd{TurnSummary: wroteTurn(root, "b.go")}).Notices
	second := n.Ended(ctx, agent.TurnEnd{TurnSummary: wroteTurn(root, "c.go")}).Notices
	if len(first) != 1 || len(quiet) != 0 || len(second) != 1 || !strings.HasPrefix(second[0], "still no update") {
		t.Fatalf("first %q, quiet %q, second %q", first, quiet, second)
	}
}

func TestScaffoldWritesWhatIsMissingAndKeepsTheRest(t *testing.T) {
	root := repo(t)
	sub := filepath.Join(root, "cmd", "tool")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if !NeedsScaffold(sub) {
		t.Fatal("an empty repository needs the scaffold")
	}
	res, err := Scaffold(sub)
	if err != nil {
		t.Fatal(err)
	}
	if res.Root != root || len(res.Written) != 3 || len(res.Kept) != 0 {
		t.Fatalf("result = %+v", res)
	}
	want := map[string]string{
		"TODO.md":        "# TODO\n\nWhat is being worked on, what comes next, and upkeep that should not be forgotten.\n\n## Now\n\n_Empty._\n\n## Next\n\n_Empty._\n\n## Maintenance\n\n_Empty._\n",
		"ROADMAP.md":     "# Roadmap\n\nMilestones in the order they are meant to ship.\n\n## Next\n\n_Empty._\n",
		"docs/README.md": "# Docs\n\nDeveloper documentation for this project.\n",
	}
	for rel, body := range want {
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || string(got) != body {
			t.Errorf("%s = %q, %v", rel, got, err)
		}
	}
	if NeedsScaffold(root) {
		t.Fatal("after the scaffold nothing is missing")
	}
}

func TestScaffoldNeverOverwrites(t *testing.T) {
	root := repo(t)
	mine := "# My own TODO\n\n- [ ] keep me byte for byte\r\n"
	write(t, filepath.Join(root, "TODO.md"), mine)
	write(t, filepath.Join(root, "docs", "README.md"), "mine too")
	before, _ := os.Stat(filepath.Join(root, "TODO.md"))
	res, err := Scaffold(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 1 || filepath.Base(res.Written[0]) != "ROADMAP.md" || len(res.Kept) != 2 {
		t.Fatalf("result = %+v", res)
	}
	got, _ := os.ReadFile(filepath.Join(root, "TODO.md"))
	after, _ := os.Stat(filepath.Join(root, "TODO.md"))
	if string(got) != mine || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("TODO.md changed: %q", got)
	}
	if docs, _ := os.ReadFile(filepath.Join(root, "docs", "README.md")); string(docs) != "mine too" {
		t.Fatalf("docs/README.md changed: %q", docs)
	}
}

func TestNeedsScaffoldWhenAnyPieceIsMissing(t *testing.T) {
	if NeedsScaffold(repo(t, "TODO.md", "ROADMAP.md", "docs/a.md")) {
		t.Error("all present: nothing to offer")
	}
	if !NeedsScaffold(repo(t, "TODO.md", "ROADMAP.md")) {
		t.Error("docs/ missing: offer it")
	}
}

func TestInitPrompt(t *testing.T) {
	plain, offer := InitPrompt(false), InitPrompt(true)
	for _, want := range []string{"AGENTS.md", "at most 100 lines", "verified", "never invent"} {
		if !strings.Contains(plain, want) {
			t.Errorf("init prompt lacks %q", want)
		}
	}
	if strings.Contains(plain, "TODO.md") {
		t.Error("without the scaffold the prompt does not mention the tracker files")
	}
	if !strings.HasPrefix(offer, plain) || !strings.Contains(offer, "TODO.md") || !strings.Contains(offer, "ROADMAP.md") || !strings.Contains(offer, "left alone") {
		t.Errorf("scaffold prompt:\n%s", offer)
	}
}
