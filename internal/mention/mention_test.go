package mention_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/mention"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// The picker's order: names that start with the query, then substrings, then letters in order; directories first and
// shorter paths first within each; ignored files never.
func TestMatchRanksPrefixDirsShortFirst(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		".gitignore":           "build/\n",
		"main.go":              "package main\n",
		"src/main.go":          "x",
		"src/domain/model.go":  "x",
		"maintenance/notes.md": "x",
		"docs/remain.md":       "x",
		"build/main.o":         "x",
		"cmd/m_a_i_n.go":       "x",
	})
	ix := mention.NewIndex(env)
	got, err := ix.Match(t.Context(), "main", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"maintenance/", "main.go", "src/main.go", "src/domain/", "docs/remain.md", "src/domain/model.go",
		"maintenance/notes.md", "cmd/m_a_i_n.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("main: %q\nwant  %q", got, want)
	}
	if got, _ := ix.Match(t.Context(), "", 10); !slices.Equal(got, []string{"cmd/", "docs/", "maintenance/", "src/", ".gitignore", "main.go"}) {
		t.Fatalf("top level: %q", got)
	}
	if got, _ := ix.Match(t.Context(), "src/", 2); !slices.Equal(got, []string{"src/domain/", "src/main.go"}) {
		t.Fatalf("src/: %q", got)
	}
}

// The walk is lazy and kept until Invalidate: a file created meanwhile
// shows only after it.
func TestIndexIsRefreshedAfterInvalidate(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "a"})
	ix := mention.NewIndex(env)
	if got, _ := ix.Match(t.Context(), "new", 5); len(got) != 0 {
		t.Fatalf("before: %q", got)
	}
	if err := os.WriteFile(filepath.Join(env.Root, "new.txt"), []byte("n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.Match(t.Context(), "new", 5); len(got) != 0 {
		t.Fatalf("the walk was repeated without Invalidate: %q", got)
	}
	ix.Invalidate()
	if got, _ := ix.Match(t.Context(), "new", 5); !slices.Equal(got, []string{"new.txt"}) {
		t.Fatalf("after Invalidate: %q", got)
	}
}

// @path attaches files and directory listings, bounded; a word that names
// nothing, a path outside the workspace and a binary file add no content.
func TestAttachAddsNamedFiles(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		"src/a.go":  "package a\n\nfunc A() {}\n",
		"src/b.go":  "package a\n",
		"big.txt":   strings.Repeat("x", mention.FileBytes+10),
		"log.txt":   strings.Repeat("a line of a log\n", 10000),
		"blob.bin":  "a\x00b",
		"notes.txt": "n",
	})
	text := "look at @src/a.go, @src and @big.txt; ask @alice about @../etc/passwd and @blob.bin, @log.txt"
	got, _, added := mention.Attach(env, text)
	if !strings.HasPrefix(got, text+"\n\nThe user attached these with @") {
		t.Fatalf("the message itself changed:\n%s", got[:200])
	}
	for _, want := range []string{
		"=== src/a.go (3 lines) ===\npackage a\n\nfunc A() {}\n\n",
		"=== src/ (directory, 2 entries) ===\na.go\nb.go",
		"[Cut at 65536 of 65546 B: read the rest with the read tools.]",
		"[Cut at 64.0 KB of 156.2 KB: read the rest with the read tools.]",
		"=== blob.bin (binary, 3 B: not attached) ===",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("attachment lacks %q", want)
		}
	}
	if strings.Contains(got, "root:") || strings.Contains(got, "a\x00b") {
		t.Fatal("attached what it must not")
	}
	// The notice says what was sent: a cut file, how much of it.
	if strings.Join(added, "|") != "src/a.go (3 lines, 23 B)|src/ (2 entries)|big.txt (cut: 1 line, 65536 of 65546 B sent)|"+
		"blob.bin (binary, not attached)|log.txt (cut: 4096 lines, 64.0 KB of 156.2 KB sent)" {
		t.Fatalf("added = %q", added)
	}
	// Split gives back the text as typed and the names of what was added.
	typed, names := mention.Split(got)
	if typed != text || strings.Join(names, "|") != "src/a.go|src/|big.txt|blob.bin|log.txt" {
		t.Fatalf("Split = %q, %q", typed, names)
	}
	if typed, names := mention.Split("plain text"); typed != "plain text" || names != nil {
		t.Fatalf("Split of a plain text = %q, %q", typed, names)
	}
	if same, _, none := mention.Attach(env, "no mentions here, mail me@example.com"); same != "no mentions here, mail me@example.com" || none != nil {
		t.Fatalf("a message without @path changed: %q %v", same, none)
	}
}
