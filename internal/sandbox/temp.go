package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
)

// systemTemp is the shared temp folder: on Linux /tmp, where tmux and
// screen keep their sockets whatever TMPDIR says, and which commands see
// replaced by a private one (tmp_linux.go); elsewhere the system's.
func systemTemp() string {
	if runtime.GOOS == "linux" {
		return "/tmp"
	}
	return os.TempDir()
}

// privateTemp is the session's temp folder, made the first time a command
// needs it.
type privateTemp struct {
	mu     sync.Mutex
	parent string
	dir    string
	err    error
}

// get makes the folder once and returns it.
func (t *privateTemp) get() (string, error) {
	if t == nil {
		return "", errors.New("no private temp folder for a sandbox not made by New")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir != "" && !exists(t.dir) {
		t.dir = "" // removed under the session (a /tmp cleaner): made again
	}
	if t.dir == "" && t.err == nil {
		t.dir, t.err = os.MkdirTemp(t.parent, "shiro-sandbox-") // 0700
		if t.err != nil {
			t.err = fmt.Errorf("make the session's temp folder in %s: %w", t.parent, t.err)
		}
	}
	return t.dir, t.err
}

// remove removes the folder and what commands left in it.
func (t *privateTemp) remove() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir != "" {
		_ = os.RemoveAll(t.dir)
		t.dir, t.err = "", errors.New("the session has ended")
	}
}
