package navtools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestTree(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		".gitignore":       "*.log\n",
		"a.txt":            "a",
		"app.log":          "x",
		"src/main.go":      "package main",
		"src/lib/util.go":  "package lib",
		"src/lib/deep/x/y": "y",
		"empty/":           "",
		"node_modules/m/i": "",
	})
	want := "./\n  .gitignore\n  a.txt\n  empty/\n  src/\n    lib/\n      deep/\n      util.go\n    main.go"
	if got := mustCall(t, env, "tree", nil); got != want {
		t.Errorf("tree:\n got %q\nwant %q", got, want)
	}
	if got := mustCall(t, env, "tree", map[string]any{"path": "src", "depth": 1}); got != "src/\n  lib/\n  main.go" {
		t.Errorf("src depth 1: %q", got)
	}
	if got := mustCall(t, env, "tree", map[string]any{"path": "src/lib", "depth": 6}); got != "src/lib/\n  deep/\n    x/\n      y\n  util.go" {
		t.Errorf("src/lib depth 6: %q", got)
	}
	if got := mustCall(t, env, "tree", map[string]any{"path": "empty"}); got != "empty/\n  (empty)" {
		t.Errorf("empty: %q", got)
	}
	for in, want := range map[string]string{
		`{"depth":0}`:      "depth must be from 1 to 6; got 0",
		`{"depth":7}`:      "depth must be from 1 to 6; got 7",
		`{"path":"a.txt"}`: "a.txt is a file, not a directory.",
		`{"path":"nope"}`:  "No such directory: nope",
		`{"path":"../"}`:   "path escapes workspace: ../",
		`{"path":"/"}`:     "path escapes workspace: /",
		`{"depth":"x"}`:    "invalid arguments:",
		`{"unknown":true}`: "",
	} {
		var input map[string]any
		if err := json.Unmarshal([]byte(in), &input); err != nil {
			t.Fatal(err)
		}
		if want == "" {
			mustCall(t, env, "tree", input)
			continue
		}
		if msg := mustFail(t, env, "tree", input); !strings.HasPrefix(msg, want) {
			t.Errorf("tree %s: %q", in, msg)
		}
	}
}

func TestTreeCapsEntries(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 450 {
		files[fmt.Sprintf("f%03d", i)] = ""
	}
	env := newEnv(t, files)
	got := mustCall(t, env, "tree", nil)
	lines := strings.Split(got, "\n")
	if len(lines) != 402 || lines[400] != "  f399" || lines[401] != "[stopped at 400 entries; use a subdirectory or a smaller depth]" {
		t.Errorf("%d lines, tail %q", len(lines), lines[len(lines)-2:])
	}
}

func TestFindFiles(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		".gitignore":          "build/\n",
		"Config.yaml":         "",
		"src/config/a.go":     "",
		"src/app_config.go":   "",
		"build/config.out":    "",
		"other.txt":           "",
		"node_modules/config": "",
	})
	got := mustCall(t, env, "find_files", map[string]any{"name": "CONFIG"})
	if got != "Config.yaml\nsrc/app_config.go\nsrc/config/" {
		t.Errorf("got %q", got)
	}
	got = mustCall(t, env, "find_files", map[string]any{"name": "config", "limit": 2})
	if got != "Config.yaml\nsrc/app_config.go\n[first 2 shown; there are more]" {
		t.Errorf("limit 2: %q", got)
	}
	if got := mustCall(t, env, "find_files", map[string]any{"name": "zzz"}); got != `No file names contain "zzz".` {
		t.Errorf("none: %q", got)
	}
	if msg := mustFail(t, env, "find_files", map[string]any{"name": ""}); !strings.HasPrefix(msg, "name is required") {
		t.Errorf("empty: %q", msg)
	}
	if msg := mustFail(t, env, "find_files", map[string]any{"name": "a", "limit": 0}); msg != "limit must be from 1 to 1000; got 0" {
		t.Errorf("limit 0: %q", msg)
	}
}

func TestRecentFiles(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		".gitignore": "ignored.txt\n",
		"old.txt":    "", "mid.txt": "", "new.txt": "", "sub/newest.txt": "", "ignored.txt": "",
	})
	base := time.Date(2024, 5, 6, 7, 8, 9, 0, time.Local)
	for name, age := range map[string]int{".gitignore": 10, "old.txt": 3, "mid.txt": 2, "new.txt": 1, "sub/newest.txt": 0, "ignored.txt": -1} {
		when := base.Add(-time.Duration(age) * time.Hour)
		if err := os.Chtimes(filepath.Join(env.Root, name), when, when); err != nil {
			t.Fatal(err)
		}
	}
	got := mustCall(t, env, "recent_files", map[string]any{"limit": 3})
	want := "2024-05-06 07:08:09  sub/newest.txt\n2024-05-06 06:08:09  new.txt\n2024-05-06 05:08:09  mid.txt"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := mustCall(t, env, "recent_files", nil); strings.Count(got, "\n") != 4 {
		t.Errorf("default limit: %q", got)
	}
	if msg := mustFail(t, env, "recent_files", map[string]any{"limit": 201}); msg != "limit must be from 1 to 200; got 201" {
		t.Errorf("limit: %q", msg)
	}
}

func TestFileInfo(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a.txt": "one\ntwo\nthree", "b.bin": "x\x00y", "dir/x": "", "empty": ""})
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(env.Root, "a.txt"), when, when); err != nil {
		t.Fatal(err)
	}
	got := mustCall(t, env, "file_info", map[string]any{"path": "a.txt"})
	want := "path: a.txt\ntype: file\nsize: 13 bytes (13 B)\ncontent: text\nlines: 3\nmode: -rw-r--r--\nmodified: " + when.Local().Format(time.RFC3339)
	if got != want {
		t.Errorf("a.txt:\n got %q\nwant %q", got, want)
	}
	got = mustCall(t, env, "file_info", map[string]any{"path": "b.bin"})
	if !strings.Contains(got, "content: binary\n") || strings.Contains(got, "lines:") {
		t.Errorf("b.bin: %q", got)
	}
	got = mustCall(t, env, "file_info", map[string]any{"path": "dir"})
	if !strings.HasPrefix(got, "path: dir\ntype: directory\nentries: 1\n") {
		t.Errorf("dir: %q", got)
	}
	if got := mustCall(t, env, "file_info", map[string]any{"path": "empty"}); !strings.Contains(got, "lines: 0") {
		t.Errorf("empty: %q", got)
	}
	if msg := mustFail(t, env, "file_info", map[string]any{"path": "nope"}); msg != "No such file: nope" {
		t.Errorf("missing: %q", msg)
	}
	if msg := mustFail(t, env, "file_info", map[string]any{"path": "/etc/passwd"}); !strings.HasPrefix(msg, "path escapes workspace") {
		t.Errorf("jail: %q", msg)
	}
}

func TestCountLines(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".gitignore": "gen/\n",
		"a.go":       "1\n2\n3\n",
		"b.go":       "1\n2",
		"c.txt":      "1\n",
		"gen/x.go":   "1\n",
		"bin.dat":    "\x00\n\n",
		"sub/d.go":   "",
	}
	env := newEnv(t, files)
	got := mustCall(t, env, "count_lines", nil)
	want := "1\t.gitignore\n3\ta.go\n2\tb.go\n1\tc.txt\n0\tsub/d.go\n7\ttotal (5 files)\n[1 binary files skipped]"
	if got != want {
		t.Errorf("all:\n got %q\nwant %q", got, want)
	}
	if got := mustCall(t, env, "count_lines", map[string]any{"pattern": "*.go"}); got != "3\ta.go\n2\tb.go\n0\tsub/d.go\n5\ttotal (3 files)" {
		t.Errorf("*.go: %q", got)
	}
	if got := mustCall(t, env, "count_lines", map[string]any{"path": "sub"}); got != "0\tsub/d.go\n0\ttotal (1 files)" {
		t.Errorf("sub: %q", got)
	}
	if got := mustCall(t, env, "count_lines", map[string]any{"path": "b.go"}); got != "2\tb.go" {
		t.Errorf("file: %q", got)
	}
	if got := mustCall(t, env, "count_lines", map[string]any{"pattern": "*.rs"}); got != "No text files under . match." {
		t.Errorf("none: %q", got)
	}
	if msg := mustFail(t, env, "count_lines", map[string]any{"path": "bin.dat"}); msg != "bin.dat is a binary file; it has no lines to count." {
		t.Errorf("binary: %q", msg)
	}
	if msg := mustFail(t, env, "count_lines", map[string]any{"path": "../"}); !strings.HasPrefix(msg, "path escapes workspace") {
		t.Errorf("jail: %q", msg)
	}
}

func TestCountLinesCapsFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 510 {
		files[fmt.Sprintf("f%03d.txt", i)] = "x\n"
	}
	env := newEnv(t, files)
	got := mustCall(t, env, "count_lines", nil)
	if !strings.HasSuffix(got, "500\ttotal (500 files)\n[stopped at 500 files; the total covers those; narrow path or pattern]") {
		t.Errorf("tail: %q", got[len(got)-120:])
	}
}

func TestCountTokens(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a.txt": strings.Repeat("é", 10), "b.bin": "\x00"})
	if got := mustCall(t, env, "count_tokens", map[string]any{"text": "abcdefgh"}); got != "~2 tokens in the text (an estimate: 8 characters / 4; real tokenizers differ)" {
		t.Errorf("text: %q", got)
	}
	if got := mustCall(t, env, "count_tokens", map[string]any{"path": "a.txt"}); got != "~3 tokens in a.txt (an estimate: 10 characters / 4; real tokenizers differ)" {
		t.Errorf("file: %q", got)
	}
	for _, in := range []map[string]any{{}, {"path": "a.txt", "text": "x"}} {
		if msg := mustFail(t, env, "count_tokens", in); msg != "give either path or text." {
			t.Errorf("%v: %q", in, msg)
		}
	}
	if msg := mustFail(t, env, "count_tokens", map[string]any{"path": "b.bin"}); msg != "b.bin is a binary file, not text." {
		t.Errorf("binary: %q", msg)
	}
}

func TestEnvInfo(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	// A PATH holding only a fake `node` shows what is found, what is not,
	// and that the versions come from running the programs.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "node"), []byte("#!/bin/sh\necho v99.1.0\necho second line\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := mustCall(t, env, "env_info", nil)
	for _, want := range []string{
		"platform: " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
		"workspace: " + env.Root + "\n",
		"shell: bash\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if !regexp.MustCompile(`(?m)^git: git version \d`).MatchString(got) {
		t.Errorf("git version:\n%s", got)
	}
	for _, p := range []string{"go", "node", "python3", "git", "rg"} {
		if !regexp.MustCompile(`(?m)^` + p + `: \S`).MatchString(got) {
			t.Errorf("no row for %s:\n%s", p, got)
		}
	}
	if v := version(t.Context(), env, probe{program: filepath.Join(bin, "node"), args: []string{"--version"}}); v != "v99.1.0" {
		t.Errorf("fake node: %q", v)
	}
	if v := version(t.Context(), env, probe{program: filepath.Join(bin, "missing")}); v != "not found" {
		t.Errorf("missing: %q", v)
	}
}

func TestChangedFiles(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a.go": "a\n", "b.go": "b\n", "c.go": "c\n", "old.txt": "o\n"})
	outside := *env
	outside.ShellEnv = append(env.ShellEnv[:len(env.ShellEnv):len(env.ShellEnv)], "GIT_CEILING_DIRECTORIES="+filepath.Dir(env.Root))
	if msg := mustFail(t, &outside, "changed_files", nil); msg != env.Root+" is not a git repository." {
		t.Errorf("not a repo: %q", msg)
	}
	gitRun(t, env, "init", "-q", "-b", "main")
	gitRun(t, env, "add", "-A")
	gitRun(t, env, "commit", "-q", "-m", "init")
	if got := mustCall(t, env, "changed_files", nil); got != "No uncommitted changes." {
		t.Errorf("clean: %q", got)
	}
	writeFiles(t, env.Root, map[string]string{"a.go": "a2\n", "new.go": "n\n", "added.go": "x\n"})
	gitRun(t, env, "add", "added.go")
	gitRun(t, env, "mv", "old.txt", "new.txt")
	if err := os.Remove(filepath.Join(env.Root, "b.go")); err != nil {
		t.Fatal(err)
	}
	got := mustCall(t, env, "changed_files", nil)
	want := "modified (1): a.go\nadded (1): added.go\ndeleted (1): b.go\nrenamed (1): old.txt -> new.txt\nuntracked (1): new.go"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
