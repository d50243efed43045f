package prompt

import (
	"path/filepath"
	"strings"
	"testing"
)

// CLAUDE.md imports follow it, labelled, recursively; CLAUDE.local.md is
// read; code, mentions, repeats and files outside the repository are not
// imported, and the list says what was skipped.
func TestClaudeImportsAndLocalFile(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	root := filepath.Join(base, "repo")
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "x")
	writeFile(t, filepath.Join(root, "CLAUDE.md"), "See @docs/style.md and @~/.claude/mine.md.\n"+
		"Ask @alice. `@docs/code.md` is code.\n```\n@docs/fenced.md\n```\n@../outside.md\n@docs/style.md\n")
	writeFile(t, filepath.Join(root, "CLAUDE.local.md"), "my local notes")
	writeFile(t, filepath.Join(root, "docs", "style.md"), "tabs, not spaces; see @nested.md")
	writeFile(t, filepath.Join(root, "docs", "nested.md"), "nested rule")
	writeFile(t, filepath.Join(root, "docs", "code.md"), "NOT IMPORTED code")
	writeFile(t, filepath.Join(root, "docs", "fenced.md"), "NOT IMPORTED fenced")
	writeFile(t, filepath.Join(base, "outside.md"), "NOT IMPORTED outside")
	writeFile(t, filepath.Join(home, ".claude", "mine.md"), "my preferences")

	text, files := ReadInstructions(root, InstructionOptions{Home: home})
	if strings.Contains(text, "NOT IMPORTED") {
		t.Fatalf("imported what it should not:\n%s", text)
	}
	order := []string{
		"(CLAUDE.md)", "See @docs/style.md",
		"(docs/style.md, imported by CLAUDE.md)", "tabs, not spaces",
		"(docs/nested.md, imported by docs/style.md)", "nested rule",
		"imported by CLAUDE.md)", "my preferences",
		"(CLAUDE.local.md)", "my local notes",
	}
	at := 0
	for _, w := range order {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, text)
		}
		at += i
	}
	if strings.Count(text, "tabs, not spaces") != 1 {
		t.Fatal("a file imported twice is read once")
	}
	var skipped, read []string
	for _, f := range files {
		if f.Skipped != "" {
			skipped = append(skipped, f.Label+": "+f.Skipped)
		} else {
			read = append(read, f.Label)
		}
	}
	if strings.Join(skipped, "|") != "../outside.md: outside the repository and ~/.claude" {
		t.Fatalf("skipped = %q", skipped)
	}
	if len(read) != 5 || files[0].Bytes != len("See @docs/style.md and @~/.claude/mine.md.\nAsk @alice. `@docs/code.md` is code.\n```\n@docs/fenced.md\n```\n@../outside.md\n@docs/style.md") {
		t.Fatalf("read = %q, first %+v", read, files[0])
	}
}

// Without a home directory, ~/ imports are refused; AGENTS.md imports
// nothing (the syntax is Claude Code's).
func TestImportsNeedAHomeAndAClaudeFile(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "x")
	writeFile(t, filepath.Join(root, "AGENTS.md"), "@notes.md")
	writeFile(t, filepath.Join(root, "notes.md"), "NOT IMPORTED")
	writeFile(t, filepath.Join(root, "CLAUDE.md"), "@~/.claude/x.md")
	text, files := ReadInstructions(root, InstructionOptions{})
	if strings.Contains(text, "NOT IMPORTED") || len(files) != 3 || files[2].Skipped == "" {
		t.Fatalf("text:\n%s\nfiles %+v", text, files)
	}
}

// Claude Code's places: the user's ~/.claude/CLAUDE.md first (with its own
// imports), then each directory's CLAUDE.md and .claude/CLAUDE.md from the
// git root down, every one listed under the label /context shows.
func TestClaudeCodeMemoryPlaces(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	repo := filepath.Join(base, "repo")
	root := filepath.Join(repo, "sub")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "x")
	writeFile(t, filepath.Join(home, ".claude", "CLAUDE.md"), "user orders\n@prefs.md")
	writeFile(t, filepath.Join(home, ".claude", "prefs.md"), "user prefs")
	writeFile(t, filepath.Join(repo, "CLAUDE.md"), "repo orders")
	writeFile(t, filepath.Join(repo, ".claude", "CLAUDE.md"), "repo dot-claude orders\n@notes.md")
	writeFile(t, filepath.Join(repo, ".claude", "notes.md"), "repo notes")
	writeFile(t, filepath.Join(root, ".claude", "CLAUDE.md"), "sub dot-claude orders")

	text, files := ReadInstructions(root, InstructionOptions{Home: home})
	order := []string{"user orders", "user prefs", "repo orders", "repo dot-claude orders", "repo notes", "sub dot-claude orders"}
	at := 0
	for _, w := range order {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, text)
		}
		at += i
	}
	var labels []string
	for _, f := range files {
		labels = append(labels, f.Label)
	}
	want := "~/.claude/CLAUDE.md|~/.claude/prefs.md|../CLAUDE.md|../.claude/CLAUDE.md|../.claude/notes.md|.claude/CLAUDE.md"
	if got := strings.Join(labels, "|"); got != want {
		t.Fatalf("files = %s\nwant    %s", got, want)
	}

	// Without a home, the user's file is not read.
	text, _ = ReadInstructions(root, InstructionOptions{})
	if strings.Contains(text, "user orders") {
		t.Fatalf("read the user's file without a home:\n%s", text)
	}
}

// A workspace that is the home directory reads ~/.claude/CLAUDE.md once.
func TestClaudeUserFileReadOnceInHome(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "CLAUDE.md"), "only once")
	text, files := ReadInstructions(home, InstructionOptions{Home: home})
	if strings.Count(text, "only once") != 1 || len(files) != 1 {
		t.Fatalf("files %+v, text:\n%s", files, text)
	}
}
