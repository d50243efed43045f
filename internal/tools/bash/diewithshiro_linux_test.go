package bash

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc/proctest"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// dieHelperVar, set to a directory, makes TestDieWithShiroHelper act.
const dieHelperVar = "SHIRO_BASH_TEST_HELPER"

// diePIDs are the processes the helper reports: for a background job, a
// foreground command and a check, the shell and a child it forked.
func diePIDs() []string {
	return []string{"bgshell", "bgchild", "fgshell", "fgchild", "checkshell", "checkchild"}
}

// TestDieWithShiroHelper is not a test: it is the stand-in for shiro that
// TestCommandsDieWithShiro starts and kills. It runs a background job, a
// foreground command and a check through the tools, which print their
// pids, and waits to be killed.
func TestDieWithShiroHelper(t *testing.T) {
	dir := os.Getenv(dieHelperVar)
	if dir == "" {
		t.Skip("helper process for TestCommandsDieWithShiro")
	}
	env, err := workspace.New(dir)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	env.ShellEnv = append(os.Environ(), "HOME="+dir)
	var mu sync.Mutex
	say := func(chunk string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = os.Stdout.WriteString(chunk)
	}
	bg := NewBackground(filepath.Join(dir, "backgrounds.json"), env, Hooks{Output: func(_, chunk string) { say(chunk) }})
	ts := Tools(env, bg)
	ctx := context.Background()
	if _, err := invoke(ctx, ts[0], tooltest.Input(t, map[string]any{
		"command": `echo "bgshell $$"; sleep 300 & echo "bgchild $!"; wait`, "background": true,
	}), nil); err != nil {
		fmt.Println("error", err)
		return
	}
	foreground := tooltest.Input(t, map[string]any{"command": `echo "fgshell $$"; sleep 300 & echo "fgchild $!"; wait`})
	go func() {
		_, err := invoke(ctx, ts[0], foreground, say)
		say(fmt.Sprintf("error the foreground command ended: %v\n", err))
	}()
	go func() {
		_, err := invoke(ctx, Checks(env)[0], []byte(`{}`), say)
		say(fmt.Sprintf("error the check ended: %v\n", err))
	}()
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test kills us
}

// Whatever bash, a background job or run_checks started dies with shiro,
// even when shiro is killed with SIGKILL and cleans nothing up. (The
// mechanisms are proc's; this checks that every command asks for them.)
func TestCommandsDieWithShiro(t *testing.T) {
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{
		"AGENTS.md": "`make test`",
		"Makefile":  "test:\n\t@echo \"checkshell $$$$\"; sleep 300 & echo \"checkchild $$!\"; wait\n",
	})
	helper := exec.Command(os.Args[0], "-test.run=^TestDieWithShiroHelper$", "-test.count=1")
	helper.Env = append(os.Environ(), dieHelperVar+"="+dir)
	stdin, err := helper.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close() })
	stdout, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = helper.Process.Kill()
		_ = helper.Wait()
	})
	pids := map[string]int{}
	lines := bufio.NewScanner(stdout)
	for len(pids) < len(diePIDs()) && lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "error") {
			t.Fatalf("helper: %s", line)
		}
		name, num, _ := strings.Cut(line, " ")
		if pid, err := strconv.Atoi(num); err == nil && pid > 1 {
			pids[name] = pid
			proctest.KillOnCleanup(t, pid)
		}
	}
	for _, name := range diePIDs() {
		if pids[name] == 0 || !proctest.Running(pids[name]) {
			t.Fatalf("%s is not running before the kill (helper reported %v, scan error %v)", name, pids, lines.Err())
		}
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	for _, name := range diePIDs() {
		if !proctest.Exited(t, pids[name], testDeadline) {
			t.Errorf("%s %d outlived its shiro", name, pids[name])
		}
	}
}
