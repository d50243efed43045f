package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workflow"
)

// Outside a git repository --init-scaffold writes into the working
// directory and says so; a prompt given with it is not run, and it says
// that too (issue 16: silence was the bug, not either behaviour).
func TestInitScaffoldSaysWhereItWritesAndThatThePromptWasNotRun(t *testing.T) {
	dir := t.TempDir()
	if workflow.GitRoot(dir) != "" {
		t.Skip("the temporary directory is inside a git repository")
	}
	stdio, out, errb := scaffoldIO(dir)
	if code := Run(t.Context(), []string{"--init-scaffold", "-p", "fix the build"}, stdio); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	stderr := errb.String()
	if !strings.Contains(stderr, "shiro: "+dir+" is not in a git repository; writing the files here\n") {
		t.Errorf("stderr does not say where the files go:\n%s", stderr)
	}
	if !strings.Contains(stderr, "the prompt was not run") {
		t.Errorf("stderr does not say the prompt was dropped:\n%s", stderr)
	}
	if !strings.Contains(out.String(), "wrote "+filepath.Join(dir, "TODO.md")+"\n") {
		t.Errorf("stdout:\n%s", out)
	}
}

// Inside a repository, with no prompt, neither note is printed.
func TestInitScaffoldInARepositoryIsQuietOnStderr(t *testing.T) {
	root := t.TempDir()
	stdio, _, errb := scaffoldIO(root)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code := Run(t.Context(), []string{"--init-scaffold"}, stdio); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if errb.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", errb)
	}
}
