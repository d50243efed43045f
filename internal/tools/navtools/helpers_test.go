package navtools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools"
)

// newEnv makes a workspace with files (a name ending in / is an empty
// directory).
func newEnv(t testing.TB, files map[string]string) *tools.Env {
	t.Helper()
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A home of its own keeps the user's login scripts (which may be slow,
	// or wait on a lock) out of `bash -lc`, and their git config out of git.
	env.ShellEnv = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	writeFiles(t, env.Root, files)
	return env
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t testing.TB, env *tools.Env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureEnv is a workspace holding a copy of testdata/symbols.
func fixtureEnv(t testing.TB) *tools.Env {
	t.Helper()
	entries, err := os.ReadDir("testdata/symbols")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata/symbols", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return newEnv(t, files)
}

func toolNamed(t testing.TB, name string) tools.Tool {
	t.Helper()
	for _, tool := range Tools(nil) {
		if tool.Spec().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func call(t testing.TB, env *tools.Env, name string, input any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return toolNamed(t, name).Run(context.Background(), tools.Call{ID: "1", Input: raw, Env: env})
}

func mustCall(t testing.TB, env *tools.Env, name string, input any) string {
	t.Helper()
	out, err := call(t, env, name, input)
	if err != nil {
		t.Fatalf("%s %v: %v", name, input, err)
	}
	return out
}

func mustFail(t testing.TB, env *tools.Env, name string, input any) string {
	t.Helper()
	out, err := call(t, env, name, input)
	if err == nil {
		t.Fatalf("%s %v: want an error, got %q", name, input, out)
	}
	return err.Error()
}

// gitRun runs git in the workspace for a test's setup.
func gitRun(t testing.TB, env *tools.Env, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = env.Root
	cmd.Env = env.ShellEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
