package patch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// A patch that exercises every kind of step: a new file in new
// directories, an in-place update, a move into a new directory, a delete.
var commitFiles = map[string]string{
	"upd.txt":   "one\ntwo\n",
	"mv.txt":    "move me\n",
	"del.txt":   "delete me\n",
	"other/x":   "bystander\n",
	"readme.md": "# r\n",
}

var commitPatch = envelope(
	"*** Add File: new/deep/add.txt\n+added",
	"*** Update File: upd.txt\n@@\n one\n-two\n+2",
	"*** Update File: mv.txt\n*** Move to: moved/here.txt\n@@\n-move me\n+moved",
	"*** Delete File: del.txt",
)

func runWithFault(t *testing.T, env *workspace.Env, fault faultHook) (string, error) {
	t.Helper()
	res, err := tooltest.Invoke(t.Context(), applyPatchTool(env, fault), tooltest.Input(t, map[string]string{"patch": commitPatch}), tool.Runtime{})
	return res.Output, err
}

// TestApplyPatchRollsBackAtEveryStep makes each step of the commit fail in
// turn (staging a file, creating a directory, each rename) and checks the
// workspace is byte-for-byte as before, with no temp file left.
func TestApplyPatchRollsBackAtEveryStep(t *testing.T) {
	// A clean run lists the steps.
	var steps []string
	env := wstest.Env(t, commitFiles)
	if _, err := runWithFault(t, env, func(step string) error {
		steps = append(steps, step)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mkdir new", "mkdir new/deep", "stage new/deep/add.txt", "backup upd.txt", "reserve del.txt", "rename del.txt", "rename upd.txt", "rename moved/here.txt", "rename mv.txt"} {
		if !slices.Contains(steps, want) {
			t.Errorf("steps %q lack %q", steps, want)
		}
	}
	for i, failAt := range steps {
		env := wstest.Env(t, commitFiles)
		before := tooltest.Snapshot(t, env.Root)
		n := 0
		_, err := runWithFault(t, env, func(step string) error {
			n++
			if n == i+1 {
				return errors.New("injected failure")
			}
			return nil
		})
		if err == nil {
			t.Fatalf("failing step %d (%s): the patch applied", i+1, failAt)
		}
		tooltest.Contains(t, strings.ToLower(err.Error()), "injected failure", "no file was changed")
		if strings.Contains(err.Error(), "partly changed") {
			t.Errorf("step %s: %v", failAt, err)
		}
		t.Run(failAt, func(t *testing.T) { tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root)) })
	}
}

// When a rename fails and an undo fails too, the error says which file
// could not be restored and where its previous content is.
func TestApplyPatchReportsAFailedRollback(t *testing.T) {
	env := wstest.Env(t, commitFiles)
	_, err := runWithFault(t, env, func(step string) error {
		switch step {
		case "rename moved/here.txt", "undo upd.txt":
			return errors.New("injected failure")
		}
		return nil
	})
	if err == nil {
		t.Fatal("the patch applied")
	}
	msg := err.Error()
	tooltest.Contains(t, msg, "apply_patch failed: write moved/here.txt: injected failure",
		"Rolling back failed too, so the workspace is partly changed:",
		"- could not restore upd.txt: injected failure (its previous content is in .upd.txt.shiro-")
	// The backup named in the message holds the old content; everything
	// else was restored.
	backup := msg[strings.Index(msg, "content is in ")+len("content is in ") : strings.LastIndex(msg, ")")]
	if got := tooltest.ReadFile(t, env.Root, backup); got != commitFiles["upd.txt"] {
		t.Errorf("backup holds %q", got)
	}
	if got := tooltest.ReadFile(t, env.Root, "upd.txt"); got != "one\n2\n" {
		t.Errorf("upd.txt %q", got)
	}
	for _, p := range []string{"del.txt", "mv.txt"} {
		if got := tooltest.ReadFile(t, env.Root, p); got != commitFiles[p] {
			t.Errorf("%s not restored: %q", p, got)
		}
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "new")); !os.IsNotExist(err) {
		t.Errorf("new directories were left behind")
	}
}

// A real failure, not an injected one, that happens even as root: a file
// name that is valid but leaves no room for the temp file's longer name.
// Staging fails after other files were staged; nothing changes.
func TestApplyPatchStagingFailsForReal(t *testing.T) {
	env := wstest.Env(t, commitFiles)
	before := tooltest.Snapshot(t, env.Root)
	long := strings.Repeat("n", 250)
	_, err := runPatch(t, env, envelope(
		"*** Update File: upd.txt\n@@\n one\n-two\n+2",
		"*** Add File: fresh/"+long+"\n+x",
	))
	if err == nil {
		t.Fatal("the patch applied")
	}
	tooltest.Contains(t, err.Error(), "apply_patch could not prepare the files: write fresh/"+long, "No file was changed.")
	tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))
}

// A real failure, not an injected one: a directory that cannot be written
// makes staging fail, and nothing changes anywhere.
func TestApplyPatchReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write into read-only directories")
	}
	env := wstest.Env(t, commitFiles)
	ro := filepath.Join(env.Root, "other")
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	before := tooltest.Snapshot(t, env.Root)
	_, err := runPatch(t, env, envelope(
		"*** Update File: upd.txt\n@@\n one\n-two\n+2",
		"*** Update File: other/x\n@@\n-bystander\n+changed",
	))
	if err == nil {
		t.Fatal("the patch applied")
	}
	tooltest.Contains(t, err.Error(), "No file was changed.")
	tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))
}
