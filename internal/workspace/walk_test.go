package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func walkFiles(t *testing.T, env *workspace.Env, root string, opts workspace.WalkOptions) []string {
	t.Helper()
	var got []string
	err := workspace.Walk(context.Background(), env, root, opts, func(rel string, d fs.DirEntry) error {
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
	env := wstest.IgnoreFixture(t)
	got := walkFiles(t, env, ".", workspace.WalkOptions{})
	if !slices.Equal(got, wstest.IgnoreFixtureVisible()) {
		t.Errorf("visible files\n got: %q\nwant: %q", got, wstest.IgnoreFixtureVisible())
	}
}

func TestWalkIncludeIgnoredStillSkipsGitAndNodeModules(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	got := walkFiles(t, env, ".", workspace.WalkOptions{IncludeIgnored: true})
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
	env := wstest.IgnoreFixture(t)
	got := walkFiles(t, env, "sub", workspace.WalkOptions{})
	want := []string{"sub/.gitignore", "sub/.shiroignore", "sub/deeper/.gitignore", "sub/deeper/local.txt", "sub/x/anchored.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (sub/app.log is hidden by the root's *.log)", got, want)
	}
}

func TestWalkDoesNotFollowSymlinks(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"secret.txt": "x"})
	env := wstest.Env(t, map[string]string{"in.txt": "x"})
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	var types = map[string]fs.FileMode{}
	err := workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
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
	if err := workspace.Walk(context.Background(), env, "out", workspace.WalkOptions{}, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, workspace.ErrEscape) {
		t.Errorf("walking a symlink that leads out: got %v, want workspace.ErrEscape", err)
	}
}

func TestWalkDepthSkipAndCancel(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a/b/c/d.txt": "", "a/x.txt": "", "z.txt": ""})
	var got []string
	_ = workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{MaxDepth: 2}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return nil
	})
	if want := []string{"a", "a/b", "a/x.txt", "z.txt"}; !slices.Equal(got, want) {
		t.Errorf("MaxDepth 2: got %q, want %q", got, want)
	}

	got = nil
	_ = workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
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
	err := workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return fs.SkipAll
	})
	if err != nil || len(got) != 1 {
		t.Errorf("SkipAll: err %v, visited %q", err, got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := workspace.Walk(ctx, env, ".", workspace.WalkOptions{}, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: got %v", err)
	}
}

func TestWalkRootErrors(t *testing.T) {
	env := wstest.Env(t, map[string]string{"f.txt": ""})
	noop := func(string, fs.DirEntry) error { return nil }
	if err := workspace.Walk(context.Background(), env, "f.txt", workspace.WalkOptions{}, noop); err == nil {
		t.Error("walking a file should fail")
	}
	if err := workspace.Walk(context.Background(), env, "missing", workspace.WalkOptions{}, noop); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: got %v", err)
	}
	if err := workspace.Walk(context.Background(), env, "../", workspace.WalkOptions{}, noop); !errors.Is(err, workspace.ErrEscape) {
		t.Errorf("escaping root: got %v", err)
	}
}

// The rg path filters rg's output through visibility; it must agree with
// Walk on every file of the tree.
func TestVisibilityAgreesWithWalk(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	visible := map[string]bool{}
	for _, p := range walkFiles(t, env, ".", workspace.WalkOptions{}) {
		visible[p] = true
	}
	vis := workspace.NewVisibility(env.Root)
	err := filepath.WalkDir(env.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		rel := env.Rel(p)
		if got := vis.File(rel); got != visible[rel] {
			t.Errorf("%s: visibility says %v, walk says %v", rel, got, visible[rel])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
