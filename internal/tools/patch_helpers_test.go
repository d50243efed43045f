package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// epRun calls one of the edit-plus tools with input marshalled to JSON.
func epRun(t testing.TB, env *Env, name string, input any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range EditPlusTools(nil) {
		if tool.Spec().Name == name {
			return tool.Run(context.Background(), Call{ID: "t", Input: raw, Env: env})
		}
	}
	t.Fatalf("no edit-plus tool %q", name)
	return "", nil
}

func epOK(t testing.TB, env *Env, name string, input any) string {
	t.Helper()
	out, err := epRun(t, env, name, input)
	if err != nil {
		t.Fatalf("%s: unexpected error: %v", name, err)
	}
	return out
}

func epFail(t testing.TB, env *Env, name string, input any) string {
	t.Helper()
	out, err := epRun(t, env, name, input)
	if err == nil {
		t.Fatalf("%s %v: expected an error, got:\n%s", name, input, out)
	}
	return err.Error()
}

// runPatch applies a patch text through the tool.
func runPatch(t testing.TB, env *Env, text string) (string, error) {
	t.Helper()
	return epRun(t, env, "apply_patch", map[string]string{"patch": text})
}

// envelope wraps patch sections in Begin/End markers.
func envelope(sections ...string) string {
	return "*** Begin Patch\n" + strings.Join(sections, "\n") + "\n*** End Patch\n"
}

// treeState is every entry under a directory: files by content and mode,
// directories and symlinks by kind, so a test can prove nothing changed,
// not even a leftover temp file.
type treeState map[string]string

func snapshot(t testing.TB, root string) treeState {
	t.Helper()
	st := treeState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			st[rel] = "symlink -> " + target
		case d.IsDir():
			st[rel] = "dir " + info.Mode().Perm().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st[rel] = info.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sameTree(t testing.TB, want, got treeState) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s is gone", k)
		} else if g != v {
			t.Errorf("%s changed:\n got %q\nwant %q", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}
