package gittools

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

// testGitEnv keeps the machine's and the user's git configuration out of
// the tests.
func testGitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
}

// newRepo makes a git repository in a temp dir, on branch main.
func newRepo(t testing.TB) *tools.Env {
	t.Helper()
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = testGitEnv()
	gitT(t, env.Root, "init", "-q", "-b", "main")
	return env
}

// gitT runs git in dir for the test's own setup.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitAt(t, dir, "2024-01-02T03:04:05Z", args...)
}

// gitAt runs git with a fixed author and committer date.
func gitAt(t testing.TB, dir, date string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(testGitEnv(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(t testing.TB, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitAll stages everything and commits it.
func commitAll(t testing.TB, root, msg, date string) {
	t.Helper()
	gitAt(t, root, date, "add", "-A")
	gitAt(t, root, date, "commit", "-q", "-m", msg)
}

func findTool(t testing.TB, ts []tools.Tool, name string) tools.Tool {
	t.Helper()
	for _, tool := range ts {
		if tool.Spec().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// call runs a tool by name with input, the workspace given by the call.
func call(t testing.TB, env *tools.Env, model CommitModel, name string, input any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	tool := findTool(t, Tools(nil, model), name)
	return tool.Run(context.Background(), tools.Call{ID: "1", Input: raw, Env: env})
}

func mustCall(t testing.TB, env *tools.Env, name string, input any) string {
	t.Helper()
	out, err := call(t, env, nil, name, input)
	if err != nil {
		t.Fatalf("%s %v: %v", name, input, err)
	}
	return out
}

func mustFail(t testing.TB, env *tools.Env, name string, input any) string {
	t.Helper()
	out, err := call(t, env, nil, name, input)
	if err == nil {
		t.Fatalf("%s %v: want an error, got %q", name, input, out)
	}
	return err.Error()
}
