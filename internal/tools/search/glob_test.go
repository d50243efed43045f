package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestGlob(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	cases := []struct {
		pattern string
		want    string
	}{
		// No slash: file names at any depth.
		{"*.txt", "a.txt\n.hidden/h.txt\nsrc/build/x.txt\nsub/deeper/local.txt\nsub/x/anchored.txt"},
		{"**/*.go", "gen/g.go"},
		{"sub/**/*.txt", "sub/deeper/local.txt\nsub/x/anchored.txt"},
		{"sub/*/*.txt", "sub/deeper/local.txt\nsub/x/anchored.txt"},
		{"./docs/*.md", "docs/readme.md"},
		{"*.{log,bak}", "important.bak\nkeep.log"},
		{env.Root + "/gen/*.go", "gen/g.go"},
		{"nothing-like-this", "No files matched."},
		{"missing-dir/*.go", "No files matched."},
		{"a.txt/*", "No files matched."},
		{"sub/deeper/", "sub/deeper/.gitignore\nsub/deeper/local.txt"},
		{"sub/deeper", "sub/deeper/.gitignore\nsub/deeper/local.txt"},
	}
	for _, c := range cases {
		got := family.Ok(t, env, "glob", map[string]any{"pattern": c.pattern})
		if c.pattern == "*.txt" {
			// Walk order: .hidden/ sorts before a.txt.
			c.want = ".hidden/h.txt\na.txt\nsrc/build/x.txt\nsub/deeper/local.txt\nsub/x/anchored.txt"
		}
		if got != c.want {
			t.Errorf("glob %q:\n got %q\nwant %q", c.pattern, got, c.want)
		}
	}
	got := family.Ok(t, env, "glob", map[string]any{"pattern": "*.log", "includeIgnored": true})
	if got != "app.log\nkeep.log\nsub/app.log" {
		t.Errorf("includeIgnored: %q", got)
	}
	for _, c := range []struct{ pattern, want string }{
		{"../*.go", "uses .."},
		{"/etc/*", "outside the workspace"},
		{"[a-", "Invalid glob pattern: [a-"},
		{"", "Empty glob pattern"},
	} {
		if msg := family.Refuse(t, env, "glob", map[string]any{"pattern": c.pattern}).Err.Error(); !strings.Contains(msg, c.want) {
			t.Errorf("glob %q: got %q", c.pattern, msg)
		}
	}
	// The schema carries limit's bounds, so the model sees them and a call
	// outside them is refused before it is judged.
	for limit, want := range map[int]string{0: "limit must be at least 1; got 0", 1001: "limit must be at most 1000; got 1001"} {
		if msg := family.Refuse(t, env, "glob", map[string]any{"pattern": "*", "limit": limit}).Err.Error(); msg != want {
			t.Errorf("limit %d: got %q", limit, msg)
		}
	}
	if out := family.Ok(t, env, "glob", map[string]any{"pattern": "a.txt", "limit": 1000}); out != "a.txt" {
		t.Errorf("limit 1000: %q", out)
	}
}

func TestGlobLimit(t *testing.T) {
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("d/f%03d.go", i)] = ""
	}
	env := wstest.Env(t, files)
	out := family.Ok(t, env, "glob", map[string]any{"pattern": "*.go"})
	lines := strings.Split(out, "\n")
	if len(lines) != 201 || lines[0] != "d/f000.go" || lines[199] != "d/f199.go" {
		t.Fatalf("%d lines: %q ... %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if lines[200] != "[200 of 250 files shown; narrow the pattern or raise limit]" {
		t.Errorf("note %q", lines[200])
	}
	if out := family.Ok(t, env, "glob", map[string]any{"pattern": "*.go", "limit": 2}); out != "d/f000.go\nd/f001.go\n[2 of 250 files shown; narrow the pattern or raise limit]" {
		t.Errorf("got %q", out)
	}
}

func TestGlobJailThroughSymlinkedBase(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"s.go": ""})
	env := wstest.Env(t, nil)
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	if msg := family.FailRun(t, env, "glob", map[string]any{"pattern": "out/*.go"}); !strings.Contains(msg, "escapes workspace") {
		t.Errorf("got %q", msg)
	}
	if out := family.Ok(t, env, "glob", map[string]any{"pattern": "**/*.go"}); out != "No files matched." {
		t.Errorf("a walk followed the symlink: %q", out)
	}
}
