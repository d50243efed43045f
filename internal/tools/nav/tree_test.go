package nav

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
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
	if got := family.Ok(t, env, "tree", nil); got != want {
		t.Errorf("tree:\n got %q\nwant %q", got, want)
	}
	if got := family.Ok(t, env, "tree", map[string]any{"path": "src", "depth": 1}); got != "src/\n  lib/\n  main.go" {
		t.Errorf("src depth 1: %q", got)
	}
	if got := family.Ok(t, env, "tree", map[string]any{"path": "src/lib", "depth": 6}); got != "src/lib/\n  deep/\n    x/\n      y\n  util.go" {
		t.Errorf("src/lib depth 6: %q", got)
	}
	if got := family.Ok(t, env, "tree", map[string]any{"path": "empty"}); got != "empty/\n  (empty)" {
		t.Errorf("empty: %q", got)
	}
	for in, want := range map[string]string{
		`{"path":"a.txt"}`: "a.txt is a file, not a directory.",
		`{"path":"nope"}`:  "No such directory: nope",
		`{"path":"../"}`:   "path escapes workspace: ../",
		`{"path":"/"}`:     "path escapes workspace: /",
	} {
		if msg := family.FailRun(t, env, "tree", json.RawMessage(in)); !strings.HasPrefix(msg, want) {
			t.Errorf("tree %s: %q", in, msg)
		}
	}
	// The schema carries depth's bounds, so the model sees them, and the
	// decoder is strict: these never reach the run.
	for in, want := range map[string]string{
		`{"depth":0}`:      "depth must be at least 1; got 0",
		`{"depth":7}`:      "depth must be at most 6; got 7",
		`{"depth":"x"}`:    "depth: type:",
		`{"unknown":true}`: `unexpected additional properties ["unknown"]`,
	} {
		if msg := family.Refuse(t, env, "tree", json.RawMessage(in)).Err.Error(); !strings.HasPrefix(msg, want) {
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
	got := family.Ok(t, env, "tree", nil)
	lines := strings.Split(got, "\n")
	if len(lines) != 402 || lines[400] != "  f399" || lines[401] != "[stopped at 400 entries; use a subdirectory or a smaller depth]" {
		t.Errorf("%d lines, tail %q", len(lines), lines[len(lines)-2:])
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
	got := family.Ok(t, env, "env_info", nil)
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
	if v := version(t.Context(), env.Env, probe{program: filepath.Join(bin, "node"), args: []string{"--version"}}); v != "v99.1.0" {
		t.Errorf("fake node: %q", v)
	}
	if v := version(t.Context(), env.Env, probe{program: filepath.Join(bin, "missing")}); v != "not found" {
		t.Errorf("missing: %q", v)
	}
}
