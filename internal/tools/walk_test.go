package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoreFixture is a workspace that exercises every ignore rule the walker
// promises. Every file contains "needle" so grep can be checked against it.
func ignoreFixture(t testing.TB) *Env {
	t.Helper()
	files := map[string]string{
		".gitignore":            "# comment\n*.log\n/build/\n!keep.log\ndocs/**/*.tmp\n",
		".git/info/exclude":     "secret-excluded.txt\n",
		".git/config":           "needle\n",
		".shiroignore":          "private/\n*.bak\n!important.bak\n!app.log\n",
		"sub/.gitignore":        "local.txt\n/anchored.txt\n",
		"sub/.shiroignore":      "gen/\n",
		"sub/deeper/.gitignore": "!local.txt\n",
	}
	for _, f := range []string{
		"a.txt", "app.log", "keep.log", "build/out.txt", "src/build/x.txt",
		"docs/c.tmp", "docs/x/y.tmp", "docs/readme.md", "secret-excluded.txt",
		"private/p.txt", "old.bak", "important.bak",
		"sub/local.txt", "sub/x/local.txt", "sub/deeper/local.txt",
		"sub/anchored.txt", "sub/x/anchored.txt", "sub/gen/g.go", "gen/g.go",
		"sub/app.log", "node_modules/m.js", "sub/node_modules/n.js", ".hidden/h.txt",
	} {
		files[f] = "needle in " + f + "\n"
	}
	env := ftEnv(t, files)
	if err := os.Symlink(filepath.Join(env.Root, "src"), filepath.Join(env.Root, "link-dir")); err != nil {
		t.Fatal(err)
	}
	return env
}

// ignoreFixtureVisible is what a walk of ignoreFixture must report as
// files, in walk order.
var ignoreFixtureVisible = []string{
	".gitignore", ".hidden/h.txt", ".shiroignore", "a.txt", "docs/readme.md",
	"gen/g.go", "important.bak", "keep.log", "link-dir", "src/build/x.txt",
	"sub/.gitignore", "sub/.shiroignore", "sub/deeper/.gitignore", "sub/deeper/local.txt",
	"sub/x/anchored.txt",
}

func walkFiles(t *testing.T, env *Env, root string, opts WalkOptions) []string {
	t.Helper()
	var got []string
	err := Walk(context.Background(), env, root, opts, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			got = append(got, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalkIgnoreSemantics(t *testing.T) {
	env := ignoreFixture(t)
	got := walkFiles(t, env, ".", WalkOptions{})
	if !slices.Equal(got, ignoreFixtureVisible) {
		t.Errorf("visible files\n got: %q\nwant: %q", got, ignoreFixtureVisible)
	}
}

func TestWalkIncludeIgnoredStillSkipsGitAndNodeModules(t *testing.T) {
	env := ignoreFixture(t)
	got := walkFiles(t, env, ".", WalkOptions{IncludeIgnored: true})
	for _, want := range []string{"app.log", "build/out.txt", "private/p.txt", "sub/gen/g.go", "secret-excluded.txt"} {
		if !slices.Contains(got, want) {
			t.Errorf("includeIgnored walk lacks %s", want)
		}
	}
	for _, p := range got {
		if strings.HasPrefix(p, ".git/") || strings.Contains(p, "node_modules") {
			t.Errorf("walk reported %s", p)
		}
	}
}

func TestWalkSubdirectoryAppliesAncestorRules(t *testing.T) {
	env := ignoreFixture(t)
	got := walkFiles(t, env, "sub", WalkOptions{})
	want := []string{"sub/.gitignore", "sub/.shiroignore", "sub/deeper/.gitignore", "sub/deeper/local.txt", "sub/x/anchored.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (sub/app.log is hidden by the root's *.log)", got, want)
	}
}

func TestWalkDoesNotFollowSymlinks(t *testing.T) {
	outside := t.TempDir()
	ftWrite(t, outside, map[string]string{"secret.txt": "x"})
	env := ftEnv(t, map[string]string{"in.txt": "x"})
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	var types = map[string]fs.FileMode{}
	err := Walk(context.Background(), env, ".", WalkOptions{}, func(rel string, d fs.DirEntry) error {
		types[rel] = d.Type()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := types["out/secret.txt"]; ok {
		t.Fatal("walk followed a symlink out of the workspace")
	}
	if types["out"]&fs.ModeSymlink == 0 {
		t.Errorf("the symlink itself should be reported as a symlink, got %v", types)
	}
	if err := Walk(context.Background(), env, "out", WalkOptions{}, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, ErrEscape) {
		t.Errorf("walking a symlink that leads out: got %v, want ErrEscape", err)
	}
}

func TestWalkDepthSkipAndCancel(t *testing.T) {
	env := ftEnv(t, map[string]string{"a/b/c/d.txt": "", "a/x.txt": "", "z.txt": ""})
	var got []string
	_ = Walk(context.Background(), env, ".", WalkOptions{MaxDepth: 2}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return nil
	})
	if want := []string{"a", "a/b", "a/x.txt", "z.txt"}; !slices.Equal(got, want) {
		t.Errorf("MaxDepth 2: got %q, want %q", got, want)
	}

	got = nil
	_ = Walk(context.Background(), env, ".", WalkOptions{}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		if rel == "a/b" {
			return fs.SkipDir
		}
		return nil
	})
	if want := []string{"a", "a/b", "a/x.txt", "z.txt"}; !slices.Equal(got, want) {
		t.Errorf("SkipDir: got %q, want %q", got, want)
	}

	got = nil
	err := Walk(context.Background(), env, ".", WalkOptions{}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return fs.SkipAll
	})
	if err != nil || len(got) != 1 {
		t.Errorf("SkipAll: err %v, visited %q", err, got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, env, ".", WalkOptions{}, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: got %v", err)
	}
}

func TestWalkRootErrors(t *testing.T) {
	env := ftEnv(t, map[string]string{"f.txt": ""})
	noop := func(string, fs.DirEntry) error { return nil }
	if err := Walk(context.Background(), env, "f.txt", WalkOptions{}, noop); err == nil {
		t.Error("walking a file should fail")
	}
	if err := Walk(context.Background(), env, "missing", WalkOptions{}, noop); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: got %v", err)
	}
	if err := Walk(context.Background(), env, "../", WalkOptions{}, noop); !errors.Is(err, ErrEscape) {
		t.Errorf("escaping root: got %v", err)
	}
}

// The rg path filters rg's output through visibility; it must agree with
// Walk on every file of the tree.
func TestVisibilityAgreesWithWalk(t *testing.T) {
	env := ignoreFixture(t)
	visible := map[string]bool{}
	for _, p := range walkFiles(t, env, ".", WalkOptions{}) {
		visible[p] = true
	}
	vis := newVisibility(env.Root)
	err := filepath.WalkDir(env.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		rel := env.Rel(p)
		if got := vis.file(rel); got != visible[rel] {
			t.Errorf("%s: visibility says %v, walk says %v", rel, got, visible[rel])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
