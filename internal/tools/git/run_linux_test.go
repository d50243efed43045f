package git

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// fakeGit puts a git on PATH that answers `rev-parse --show-prefix` and
// otherwise starts a sleeping child, reports both pids on the fifo, and
// waits. Not parallel: it changes PATH for the whole process.
func fakeGit(t *testing.T) (fifo string) {
	t.Helper()
	bin := t.TempDir()
	fifo = filepath.Join(t.TempDir(), "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" +
		"case \" $* \" in *\" rev-parse --show-prefix \"*) exit 0;; esac\n" +
		"sleep 1000 &\n" +
		"echo \"$$ $!\" > '" + fifo + "'\n" +
		"wait\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return fifo
}

// gone reports a process that no longer runs: it does not exist, or it is
// a zombie its new parent has yet to reap.
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// Cancelling a call stops git and everything it started.
func TestCancelStopsGitAndItsChildren(t *testing.T) {
	fifo := fakeGit(t)
	env := newWorkspace(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := tooltest.Invoke(ctx, tooltest.Named(t, Tools(env, nil), "git_status"), nil, tool.Runtime{})
		done <- err
	}()
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if err != nil {
		t.Fatalf("the fake git reported no pids: %v", err)
	}
	var pids []int
	for _, field := range strings.Fields(line) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("process %d still runs after the call was cancelled", pid)
		}
	}
}
