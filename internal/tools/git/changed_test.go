package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChangedFiles(t *testing.T) {
	t.Parallel()
	env := newWorkspace(t)
	write(t, env.Root, "a.go", "a\n")
	write(t, env.Root, "b.go", "b\n")
	write(t, env.Root, "c.go", "c\n")
	write(t, env.Root, "old.txt", "o\n")
	outside := *env
	outside.ShellEnv = append(env.ShellEnv[:len(env.ShellEnv):len(env.ShellEnv)], "GIT_CEILING_DIRECTORIES="+filepath.Dir(env.Root))
	if msg := family.Fail(t, &outside, "changed_files", nil); msg != env.Root+" is not a git repository." {
		t.Errorf("not a repo: %q", msg)
	}
	gitT(t, env.Root, "init", "-q", "-b", "main")
	commitAll(t, env.Root, "init", day1)
	if got := family.Ok(t, env, "changed_files", nil); got != "No uncommitted changes." {
		t.Errorf("clean: %q", got)
	}
	write(t, env.Root, "a.go", "a2\n")
	write(t, env.Root, "new.go", "n\n")
	write(t, env.Root, "added.go", "x\n")
	gitT(t, env.Root, "add", "added.go")
	gitT(t, env.Root, "mv", "old.txt", "new.txt")
	if err := os.Remove(filepath.Join(env.Root, "b.go")); err != nil {
		t.Fatal(err)
	}
	got := family.Ok(t, env, "changed_files", nil)
	want := "modified (1): a.go\nadded (1): added.go\ndeleted (1): b.go\nrenamed (1): old.txt -> new.txt\nuntracked (1): new.go"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestChangedFilesGroupsAndCaps(t *testing.T) {
	st := status{changes: []change{
		{path: "c", staged: 'U', unstaged: 'U'},
		{path: "t", staged: 'T', unstaged: ' '},
		{path: "d", staged: ' ', unstaged: 'D'},
		{path: "n", from: "o", staged: 'C', unstaged: ' '},
	}}
	for i := range changedPerKind + 2 {
		st.changes = append(st.changes, change{path: "u" + string(rune('a'+i%26)), staged: '?', unstaged: '?'})
	}
	got := formatChanged(st)
	for _, want := range []string{"conflicted (1): c\n", "modified (1): t\n", "deleted (1): d\n", "renamed (1): o -> n\n", "untracked (102): ua, ub", ", ... 2 more"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}
