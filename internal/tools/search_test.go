package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	env := ignoreFixture(t)
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
		got := ftOK(t, env, "glob", map[string]any{"pattern": c.pattern})
		if c.pattern == "*.txt" {
			// Walk order: .hidden/ sorts before a.txt.
			c.want = ".hidden/h.txt\na.txt\nsrc/build/x.txt\nsub/deeper/local.txt\nsub/x/anchored.txt"
		}
		if got != c.want {
			t.Errorf("glob %q:\n got %q\nwant %q", c.pattern, got, c.want)
		}
	}
	got := ftOK(t, env, "glob", map[string]any{"pattern": "*.log", "includeIgnored": true})
	if got != "app.log\nkeep.log\nsub/app.log" {
		t.Errorf("includeIgnored: %q", got)
	}
	for _, c := range []struct{ pattern, want string }{
		{"../*.go", "uses .."},
		{"/etc/*", "outside the workspace"},
		{"[a-", "Invalid glob pattern: [a-"},
		{"", "Empty glob pattern"},
	} {
		if msg := ftFail(t, env, "glob", map[string]any{"pattern": c.pattern}); !strings.Contains(msg, c.want) {
			t.Errorf("glob %q: got %q", c.pattern, msg)
		}
	}
	if msg := ftFail(t, env, "glob", map[string]any{"pattern": "*", "limit": 0}); !strings.Contains(msg, "limit must be from 1 to 1000") {
		t.Errorf("got %q", msg)
	}
}

func TestGlobLimit(t *testing.T) {
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("d/f%03d.go", i)] = ""
	}
	env := ftEnv(t, files)
	out := ftOK(t, env, "glob", map[string]any{"pattern": "*.go"})
	lines := strings.Split(out, "\n")
	if len(lines) != 201 || lines[0] != "d/f000.go" || lines[199] != "d/f199.go" {
		t.Fatalf("%d lines: %q ... %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if lines[200] != "[200 of 250 files shown; narrow the pattern or raise limit]" {
		t.Errorf("note %q", lines[200])
	}
	if out := ftOK(t, env, "glob", map[string]any{"pattern": "*.go", "limit": 2}); out != "d/f000.go\nd/f001.go\n[2 of 250 files shown; narrow the pattern or raise limit]" {
		t.Errorf("got %q", out)
	}
}

func TestGlobJailThroughSymlinkedBase(t *testing.T) {
	outside := t.TempDir()
	ftWrite(t, outside, map[string]string{"s.go": ""})
	env := ftEnv(t, nil)
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	if msg := ftFail(t, env, "glob", map[string]any{"pattern": "out/*.go"}); !strings.Contains(msg, "escapes workspace") {
		t.Errorf("got %q", msg)
	}
	if out := ftOK(t, env, "glob", map[string]any{"pattern": "**/*.go"}); out != "No files matched." {
		t.Errorf("a walk followed the symlink: %q", out)
	}
}

func TestListDir(t *testing.T) {
	env := ignoreFixture(t)
	ftWrite(t, env.Root, map[string]string{"big.bin": strings.Repeat("x", 3000), "empty/": ""})
	out := ftOK(t, env, "list_dir", map[string]any{"depth": 1})
	want := "./\n" +
		"  .hidden/ …\n  docs/ …\n  empty/ …\n  gen/ …\n  src/ …\n  sub/ …\n" +
		"  .gitignore (48B)\n  .shiroignore (39B)\n  a.txt (16B)\n  big.bin (2.9K)\n  important.bak (24B)\n  keep.log (19B)\n" +
		"  link-dir@ (symlink, not followed)\n" +
		"[5 ignored entries hidden; includeIgnored: true shows them]"
	if out != want {
		t.Errorf("depth 1:\n%s\nwant:\n%s", out, want)
	}
	out = ftOK(t, env, "list_dir", map[string]any{"path": "sub", "depth": 3})
	want = "sub/\n" +
		"  deeper/\n    .gitignore (11B)\n    local.txt (31B)\n" +
		"  x/\n    anchored.txt (29B)\n" +
		"  .gitignore (24B)\n  .shiroignore (5B)\n" +
		"[5 ignored entries hidden; includeIgnored: true shows them]"
	if out != want {
		t.Errorf("sub depth 3:\n%s\nwant:\n%s", out, want)
	}
	out = ftOK(t, env, "list_dir", map[string]any{"path": "empty"})
	if out != "empty/\n  (empty)" {
		t.Errorf("got %q", out)
	}
	out = ftOK(t, env, "list_dir", map[string]any{"path": "sub", "depth": 1, "includeIgnored": true})
	ftContains(t, out, "  gen/ …\n", "  anchored.txt (27B)\n", "  app.log (22B)\n", "  local.txt (24B)")
	if strings.Contains(out, "node_modules") {
		t.Error("node_modules is never listed")
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "nope"}, "No such directory: nope"},
		{map[string]any{"path": "a.txt"}, "a.txt is a file, not a directory; use read_file to read it."},
		{map[string]any{"depth": 7}, "depth must be from 1 to 6; got 7"},
		{map[string]any{"path": ".."}, "path escapes workspace"},
		{map[string]any{"path": "link-dir/.."}, ""},
	} {
		if c.want == "" {
			ftOK(t, env, "list_dir", c.in) // link-dir/.. is cleaned lexically to the root
			continue
		}
		if msg := ftFail(t, env, "list_dir", c.in); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%v: got %q", c.in, msg)
		}
	}
}

func TestListDirEntryCapKeepsShallowLevelsWhole(t *testing.T) {
	files := map[string]string{}
	for i := range 5 {
		for j := range 100 {
			files[fmt.Sprintf("d%d/f%03d.txt", i, j)] = "x"
		}
	}
	env := ftEnv(t, files)
	out := ftOK(t, env, "list_dir", map[string]any{"depth": 2})
	for i := range 5 {
		ftContains(t, out, fmt.Sprintf("  d%d/", i))
	}
	if n := strings.Count(out, ".txt"); n != listMaxEntries-5 {
		t.Errorf("%d files listed, want %d", n, listMaxEntries-5)
	}
	ftContains(t, out, "[stopped at 300 entries; list a subdirectory or use a smaller depth to see the rest]")
	ftContains(t, out, "  d3/ …") // d3 was not opened
}
