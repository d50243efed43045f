package git

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

const (
	day1 = "2024-01-02T03:04:05Z"
	day2 = "2024-02-03T03:04:05Z"
	day3 = "2024-03-04T03:04:05Z"
)

// testGitEnv keeps the machine's and the user's git configuration out of
// the tests.
func testGitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
}

// newWorkspace makes an empty workspace whose git runs without the
// machine's configuration; it is no repository yet.
func newWorkspace(t testing.TB) *workspace.Env {
	t.Helper()
	env := wstest.Env(t, nil)
	env.ShellEnv = testGitEnv()
	return env
}

// newRepo makes a git repository in a temp dir, on branch main.
func newRepo(t testing.TB) *workspace.Env {
	t.Helper()
	env := newWorkspace(t)
	gitT(t, env.Root, "init", "-q", "-b", "main")
	return env
}

// gitT runs git in dir for the test's own setup.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitAt(t, dir, day1, args...)
}

// gitAt runs git with a fixed author and committer date.
func gitAt(t testing.TB, dir, date string, args ...string) string {
	t.Helper()
	out, err := gitCmd(dir, date, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitCmd is a git command for a test's setup, with a fixed author and
// committer date.
func gitCmd(dir, date string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(testGitEnv(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	return cmd
}

func write(t testing.TB, root, name, content string) {
	t.Helper()
	wstest.Write(t, root, map[string]string{name: content})
}

// commitAll stages everything and commits it.
func commitAll(t testing.TB, root, msg, date string) {
	t.Helper()
	gitAt(t, root, date, "add", "-A")
	gitAt(t, root, date, "commit", "-q", "-m", msg)
}

// family is the package's tools with no commit model, found by name and
// run through the shared kit (tool/tooltest).
var family = tooltest.Family[*workspace.Env](func(env *workspace.Env) []tool.Tool { return Tools(env, nil) })

// call runs a tool by name with input (nil for none) in env, with model
// for git_commit_message, through Prepare and Run as a session would,
// without the gate.
func call(t testing.TB, env *workspace.Env, model CommitModel, name string, input any) (string, error) {
	t.Helper()
	res, err := tooltest.Call(t, tooltest.Named(t, Tools(env, model), name), input)
	return res.Output, err
}

// mustRefuseInput checks that a call is refused before it runs, as an
// InputError whose text is want.
func mustRefuseInput(t testing.TB, env *workspace.Env, name string, input any, want string) {
	t.Helper()
	if got := family.Refuse(t, env, name, input).Error(); got != want {
		t.Errorf("%s %v:\n got %q\nwant the InputError %q", name, input, got, want)
	}
}
