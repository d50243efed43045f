package search

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// grepBackends runs a test once per backend: the Go walker (Ripgrep
// forced empty) and ripgrep (skipped when rg is not installed).
func grepBackends(t *testing.T, env *workspace.Env, test func(t *testing.T, env *workspace.Env)) {
	t.Run("go", func(t *testing.T) {
		e := *env
		e.Ripgrep = ""
		test(t, &e)
	})
	t.Run("rg", func(t *testing.T) {
		e := *env
		e.Ripgrep = ripgrep(t)
		test(t, &e)
	})
}

// hitPaths returns the distinct paths of grep output lines.
func hitPaths(out string) []string {
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		p, _, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "[") {
			continue
		}
		if len(paths) == 0 || paths[len(paths)-1] != p {
			paths = append(paths, p)
		}
	}
	return paths
}

func TestGrepIgnoreSemanticsBothBackends(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	// Every fixture file says "needle in <path>"; the symlink is not
	// followed and the ignore files do not contain the word.
	var want []string
	for _, p := range wstest.IgnoreFixtureVisible() {
		if p != "link-dir" && !strings.HasSuffix(p, "ignore") {
			want = append(want, p)
		}
	}
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"})
		if got := hitPaths(out); !slices.Equal(got, want) {
			t.Errorf("paths\n got: %q\nwant: %q\noutput:\n%s", got, want, out)
		}
		if !strings.Contains(out, "a.txt:1: needle in a.txt") {
			t.Errorf("hit format is not path:line: text:\n%s", out)
		}
	})
}

func TestGrepIncludeIgnored(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle", "includeIgnored": true})
		tooltest.Contains(t, out, "app.log:1:", "build/out.txt:1:", "private/p.txt:1:", "sub/gen/g.go:1:", "secret-excluded.txt:1:")
		for _, p := range hitPaths(out) {
			if strings.HasPrefix(p, ".git/") || strings.Contains(p, "node_modules") {
				t.Errorf("includeIgnored still must skip %s", p)
			}
		}
	})
}

func TestGrepIncludeDoesNotOverrideIgnores(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		// ripgrep's -g would whitelist app.log; the result must not.
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle", "include": "*.log"})
		if got := hitPaths(out); !slices.Equal(got, []string{"keep.log"}) {
			t.Errorf("include *.log: got %q\n%s", got, out)
		}
		out = family.Ok(t, env, "grep", map[string]any{"pattern": "needle", "include": "sub/**/*.txt"})
		if got, want := hitPaths(out), []string{"sub/deeper/local.txt", "sub/x/anchored.txt"}; !slices.Equal(got, want) {
			t.Errorf("include sub/**/*.txt: got %q, want %q\n%s", got, want, out)
		}
		out = family.Ok(t, env, "grep", map[string]any{"pattern": "needle", "include": "**/*.go"})
		if got := hitPaths(out); !slices.Equal(got, []string{"gen/g.go"}) {
			t.Errorf("include **/*.go: got %q\n%s", got, out)
		}
	})
}

func TestGrepMatchingRules(t *testing.T) {
	long := strings.Repeat("x", 400) + " needle"
	env := wstest.Env(t, map[string]string{
		"a.go":      "package a\n\nfunc Needle() {}\n// needle here\r\nneedle\n",
		"b/c.go":    "no match\n",
		"b.txt":     "needle b\n",
		"bin.dat":   "needle\x00binary\n",
		"long.txt":  long + "\n",
		"multi.txt": "foo\nbar\n",
		"utf8.txt":  strings.Repeat("é", 350) + "needle\n",
		"noeol.txt": "last needle",
		"start.txt": "needle at start\nmid needle\n",
	})
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"})
		// Sorted by path in walk order: b/ before b.txt.
		wantOrder := []string{"a.go", "b.txt", "long.txt", "noeol.txt", "start.txt", "utf8.txt"}
		if got := hitPaths(out); !slices.Equal(got, wantOrder) {
			t.Errorf("paths %q, want %q\n%s", got, wantOrder, out)
		}
		tooltest.Contains(t, out, "a.go:4: // needle here\n", "a.go:5: needle\n", "noeol.txt:1: last needle", "start.txt:2: mid needle")
		if strings.Contains(out, "\r") {
			t.Errorf("a CR leaked into the output: %q", out)
		}
		if strings.Contains(out, "bin.dat") {
			t.Error("a binary file was searched")
		}
		tooltest.Contains(t, out, "long.txt:1: "+strings.Repeat("x", 300)+"…\n")
		tooltest.Contains(t, out, "utf8.txt:1: "+strings.Repeat("é", 300)+"…")

		out = family.Ok(t, env, "grep", map[string]any{"pattern": "NEEDLE", "ignoreCase": true, "include": "*.go"})
		tooltest.Contains(t, out, "a.go:3: func Needle() {}", "a.go:4:", "a.go:5:")
		out = family.Ok(t, env, "grep", map[string]any{"pattern": "Needle"})
		if got := hitPaths(out); !slices.Equal(got, []string{"a.go"}) || strings.Contains(out, "a.go:4") {
			t.Errorf("case-sensitive by default: %s", out)
		}
		out = family.Ok(t, env, "grep", map[string]any{"pattern": "^needle"})
		tooltest.Contains(t, out, "a.go:5:", "start.txt:1:")
		if strings.Contains(out, "start.txt:2") {
			t.Errorf("^ must anchor at line start: %s", out)
		}
		out = family.Ok(t, env, "grep", map[string]any{"pattern": `foo\sbar`})
		if out != "No matches." {
			t.Errorf("a match across lines must not count: %s", out)
		}
		if out := family.Ok(t, env, "grep", map[string]any{"pattern": "zzz-absent"}); out != "No matches." {
			t.Errorf("got %q", out)
		}
	})
}

func TestGrepErrors(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "x\n"})
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		if msg := family.Refuse(t, env, "grep", map[string]any{"pattern": "a("}).Err.Error(); !strings.HasPrefix(msg, "Invalid regex: ") {
			t.Errorf("got %q", msg)
		}
		if msg := family.Refuse(t, env, "grep", map[string]any{"pattern": ""}).Err.Error(); !strings.Contains(msg, "pattern is required") {
			t.Errorf("got %q", msg)
		}
		if msg := family.Refuse(t, env, "grep", map[string]any{"pattern": "x", "include": "../*"}).Err.Error(); !strings.Contains(msg, "..") {
			t.Errorf("got %q", msg)
		}
		if msg := family.Refuse(t, env, "grep", map[string]any{"pattern": "x", "include": "[a-"}).Err.Error(); !strings.Contains(msg, "Invalid glob pattern") {
			t.Errorf("got %q", msg)
		}
	})
}

func TestGrepCaps(t *testing.T) {
	files := map[string]string{}
	// 300 files with one hit each: 200 shown, in path order.
	for i := range 300 {
		files[fmt.Sprintf("f%03d.txt", i)] = "hit\n"
	}
	// One file with 250 hits: only 200 counted.
	files["zz/many.txt"] = strings.Repeat("hit\n", 250)
	env := wstest.Env(t, files)
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "hit"})
		lines := strings.Split(out, "\n")
		if len(lines) != grepMaxHits+1 {
			t.Fatalf("%d lines, want %d hits and a note", len(lines), grepMaxHits)
		}
		if lines[0] != "f000.txt:1: hit" || lines[199] != "f199.txt:1: hit" {
			t.Errorf("not the first 200 by path: %q .. %q", lines[0], lines[199])
		}
		if want := "[200 of at least 500 matching lines shown; narrow the pattern or set include]"; lines[200] != want {
			t.Errorf("note %q, want %q", lines[200], want)
		}
		out = family.Ok(t, env, "grep", map[string]any{"pattern": "hit", "include": "zz/*"})
		if !strings.HasSuffix(out, "[a file has more than 200 matching lines; only its first 200 are shown]") {
			t.Errorf("per-file cap note missing:\n%s", out[max(0, len(out)-200):])
		}
	})
}

func TestGrepSymlinkedFileAndDirNotFollowed(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"secret.txt": "needle outside\n"})
	env := wstest.Env(t, map[string]string{"in.txt": "needle inside\n"})
	for name, target := range map[string]string{"linkdir": outside, "link.txt": filepath.Join(outside, "secret.txt")} {
		if err := os.Symlink(target, filepath.Join(env.Root, name)); err != nil {
			t.Fatal(err)
		}
	}
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"})
		if out != "in.txt:1: needle inside" {
			t.Errorf("got %q", out)
		}
	})
}

// The rg path honours .shiroignore only through our filter; check the
// filter works for a nested file too and that rg's output is not trusted.
func TestGrepRipgrepHonoursShiroignore(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		".shiroignore":     "secrets/\n",
		"secrets/key.txt":  "needle\n",
		"app/.shiroignore": "*.gen.go\n!keep.gen.go\n",
		"app/x.gen.go":     "needle\n",
		"app/keep.gen.go":  "needle\n",
		"app/main.go":      "needle\n",
		"other/y.gen.go":   "needle\n",
	})
	env.Ripgrep = ripgrep(t)
	out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"})
	want := []string{"app/keep.gen.go", "app/main.go", "other/y.gen.go"}
	if got := hitPaths(out); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A ripgrep that fails for a reason other than the pattern hands over to
// the Go walker; one that rejects the pattern gives Invalid regex.
func TestGrepRipgrepFailureFallsBack(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "needle\n"})
	dir := t.TempDir()
	broken := filepath.Join(dir, "rg-broken")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'some I/O error' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Ripgrep = broken
	if out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"}); out != "a.txt:1: needle" {
		t.Errorf("fallback result %q", out)
	}
	env.Ripgrep = filepath.Join(dir, "no-such-rg")
	if out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"}); out != "a.txt:1: needle" {
		t.Errorf("missing rg: result %q", out)
	}
	picky := filepath.Join(dir, "rg-picky")
	if err := os.WriteFile(picky, []byte("#!/bin/sh\necho 'regex parse error: nope' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Ripgrep = picky
	if msg := family.FailRun(t, env, "grep", map[string]any{"pattern": "needle"}); msg != "Invalid regex: regex parse error: nope" {
		t.Errorf("got %q", msg)
	}
	// Output the parser gives up on (a line past its limit) stops rg,
	// however much more it had to say, and the walker answers.
	flood := filepath.Join(dir, "rg-flood")
	if err := os.WriteFile(flood, []byte("#!/bin/sh\nyes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | tr -d '\\n'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Ripgrep = flood
	if out := family.Ok(t, env, "grep", map[string]any{"pattern": "needle"}); out != "a.txt:1: needle" {
		t.Errorf("after a flood: %q", out)
	}
}

func TestComparePathsIsWalkOrder(t *testing.T) {
	paths := []string{"a.txt", "a/b", "a", "ab/c", "a/b/c", "B", "a-b"}
	slices.SortFunc(paths, comparePaths)
	want := []string{"B", "a", "a/b", "a/b/c", "a-b", "a.txt", "ab/c"}
	if !slices.Equal(paths, want) {
		t.Errorf("got %q, want %q", paths, want)
	}
}

// On a real tree (the Go sources, with nested .gitignore files in vendored
// modules) both backends must print the same result, byte for byte.
func TestGrepBackendsAgreeOnGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("searches the Go source tree")
	}
	rg := ripgrep(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("go env GOROOT:", err)
	}
	env, err := workspace.New(strings.TrimSpace(string(out)) + "/src")
	if err != nil {
		t.Skip(err)
	}
	for _, in := range []map[string]any{
		{"pattern": "func main"},
		{"pattern": `errors\.New\(".*not`},
		{"pattern": "FUNC MAIN", "ignoreCase": true, "include": "*.go"},
		{"pattern": `^package \w+_test$`, "include": "net/**"},
		{"pattern": "GOFLAGS", "include": "*.{sh,bash}"},
		{"pattern": "TODO", "includeIgnored": true, "include": "vendor/**"},
	} {
		goEnv, rgEnv := *env, *env
		goEnv.Ripgrep, rgEnv.Ripgrep = "", rg
		a, b := family.Ok(t, &goEnv, "grep", in), family.Ok(t, &rgEnv, "grep", in)
		if a != b {
			t.Errorf("%v: the backends differ\n--- go:\n%s\n--- rg:\n%s", in, head(a, 20), head(b, 20))
		}
	}
}

func head(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
