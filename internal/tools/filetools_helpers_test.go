package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ftEnv makes a workspace in a temp dir with the given files (a trailing /
// in a name makes an empty directory) and ripgrep switched off.
func ftEnv(t testing.TB, files map[string]string) *Env {
	t.Helper()
	env, err := NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ftWrite(t, env.Root, files)
	return env
}

func ftWrite(t testing.TB, root string, files map[string]string) {
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

func ftRead(t testing.TB, env *Env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ftTool finds one of the file tools by name.
func ftTool(t testing.TB, name string) Tool {
	t.Helper()
	for _, tool := range FileTools(nil) {
		if tool.Spec().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// ftRun calls a tool with input marshalled to JSON.
func ftRun(t testing.TB, env *Env, name string, input any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return ftTool(t, name).Run(context.Background(), Call{ID: "t", Input: raw, Env: env})
}

// ftOK runs a tool that must succeed.
func ftOK(t testing.TB, env *Env, name string, input any) string {
	t.Helper()
	out, err := ftRun(t, env, name, input)
	if err != nil {
		t.Fatalf("%s %v: unexpected error: %v", name, input, err)
	}
	return out
}

// ftFail runs a tool that must fail, and returns the error text.
func ftFail(t testing.TB, env *Env, name string, input any) string {
	t.Helper()
	out, err := ftRun(t, env, name, input)
	if err == nil {
		t.Fatalf("%s %v: expected an error, got result:\n%s", name, input, out)
	}
	return err.Error()
}

// ftRipgrep returns rg's path or skips the test.
func ftRipgrep(t testing.TB) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed; the rg path of grep is not tested here (apt-get install ripgrep)")
	}
	return rg
}

func ftContains(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}
