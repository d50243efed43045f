package patch

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

var newEnv = wstest.Env

func marshal(t testing.TB, input any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// call runs apply_patch with input marshalled to JSON.
func call(t testing.TB, env *workspace.Env, input any) (tool.Result, error) {
	t.Helper()
	return tool.Invoke(t.Context(), applyPatchTool(env, nil), marshal(t, input), tool.Runtime{CallID: "t"})
}

func ok(t testing.TB, env *workspace.Env, input any) string {
	t.Helper()
	res, err := call(t, env, input)
	if err != nil {
		t.Fatalf("apply_patch: unexpected error: %v", err)
	}
	return res.Output
}

func fail(t testing.TB, env *workspace.Env, input any) string {
	t.Helper()
	res, err := call(t, env, input)
	if err == nil {
		t.Fatalf("apply_patch %v: expected an error, got:\n%s", input, res.Output)
	}
	return err.Error()
}

// runPatch applies a patch text through the tool.
func runPatch(t testing.TB, env *workspace.Env, text string) (string, error) {
	t.Helper()
	res, err := call(t, env, map[string]string{"patch": text})
	return res.Output, err
}

// inputError prepares a call whose input must be refused before it runs.
func inputError(t testing.TB, input any) string {
	t.Helper()
	_, err := applyPatchTool(nil, nil).Prepare(marshal(t, input))
	var ie *tool.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%v: want an input error, got %v", input, err)
	}
	return err.Error()
}

// envelope wraps patch sections in Begin/End markers.
func envelope(sections ...string) string {
	return "*** Begin Patch\n" + strings.Join(sections, "\n") + "\n*** End Patch\n"
}

func readFile(t testing.TB, env *workspace.Env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
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

// readFileIfAny is the content of a file, or "" when it cannot be read.
func readFileIfAny(root, name string) string {
	b, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	return string(b)
}
