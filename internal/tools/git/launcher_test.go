package git

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
)

// recordingLauncher runs commands as they are and remembers them.
type recordingLauncher struct {
	mu    sync.Mutex
	argvs [][]string
}

func (l *recordingLauncher) Launch(x proc.Exec) (proc.Exec, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.argvs = append(l.argvs, slices.Clone(x.Argv))
	return x, nil
}

// Git runs through the workspace's launcher (its sandbox) like every
// other command: config can make git run hooks, filters and fsmonitor
// programs.
func TestGitRunsThroughTheWorkspaceLauncher(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	l := &recordingLauncher{}
	env.Launcher = l
	family.Ok(t, env, "git_status", nil)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.argvs) == 0 {
		t.Fatal("git_status ran git without the launcher")
	}
	for _, argv := range l.argvs {
		if filepath.Base(argv[0]) != "git" {
			t.Errorf("the launcher was given %q, not git", argv)
		}
	}
}
