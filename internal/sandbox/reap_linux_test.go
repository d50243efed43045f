package sandbox_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// leftNote is the supervisor's line about processes a command left.
var leftNote = regexp.MustCompile(`shiro: the command left \d+ process(es)? running; (it was|they were) stopped`)

// Processes that leave the command's group on purpose are gone when the
// command returns, in every mode: the supervisor stops them before it
// exits, so there is nothing to wait for.
func TestEscapedProcessesEndWithTheCommand(t *testing.T) {
	t.Parallel()
	for _, mode := range []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.Off} {
		for name, script := range map[string]string{
			// The pids come back through a fifo, so the command ends only
			// once the escaped process runs.
			"setsid":      `setsid sleep 1000 & echo "escaped $!"`,
			"double fork": `mkfifo p; ( setsid sh -c 'sleep 1000 & echo $! > p' & ); read pid < p; echo "escaped $pid"`,
			"setsid -f":   `mkfifo p; setsid -f sh -c 'echo $$ > p; exec sleep 1000'; read pid < p; echo "escaped $pid"`,
			"nohup":       `nohup sleep 1000 >/dev/null 2>&1 & echo "escaped $!"; disown`,
		} {
			t.Run(mode.String()+"/"+name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t)
				f.policy.Mode = mode
				res, out := f.run(t, script)
				pids := pidsAfter(t, out, "escaped ")
				for _, pid := range pids {
					if !goneNow(pid) {
						t.Errorf("process %d outlived its command; output:\n%s", pid, out)
					}
				}
				if !res.Exit.Success() {
					t.Errorf("command failed (%s):\n%s", res.Exit, out)
				}
				if !leftNote.MatchString(out) {
					t.Errorf("nothing said the process was stopped:\n%s", out)
				}
			})
		}
	}
}

// A background job that is stopped (bash_stop, shiro closing) takes the
// processes that escaped its group with it.
func TestAStoppedJobTakesItsEscapedProcessesWithIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	out := &syncBuffer{}
	seen := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := proc.Start(ctx, proc.Spec{
		Argv: []string{"bash", "--norc", "-c", `setsid sleep 1000 & echo "escaped $!"; trap '' TERM; while :; do sleep 1; done`},
		Dir:  f.ws,
		Stdout: proc.Stream(func(b []byte) {
			out.write(b)
			select {
			case seen <- struct{}{}:
			default:
			}
		}),
		Grace:         100 * time.Millisecond,
		NewSession:    true,
		DieWithParent: true,
		Launcher:      sb,
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(testDeadline)
	for !strings.Contains(out.String(), "escaped ") {
		select {
		case <-seen:
		case <-deadline:
			t.Fatalf("the job never started: %q", out.String())
		}
	}
	pids := pidsAfter(t, out.String(), "escaped ")
	cancel()
	res := p.Wait()
	if res.Stopped == nil {
		t.Errorf("result %+v, want stopped", res)
	}
	for _, pid := range append(pids, p.PID()) {
		if !goneNow(pid) {
			t.Errorf("process %d outlived the stopped job", pid)
		}
	}
}

// Hooks run in a group of their own (not a session), with no grace and a
// linger; one that daemonizes leaves nothing behind either.
func TestAHookThatDaemonizesLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var stdout, stderr syncBuffer
	res, err := proc.Run(t.Context(), proc.Spec{
		Argv:     []string{"/bin/sh", "-c", `setsid sh -c 'sleep 1000' >/dev/null 2>&1 & echo "escaped $!" >&2; echo '{"decision":"allow"}'`},
		Dir:      f.ws,
		Stdin:    []byte(`{"tool":"bash"}`),
		Stdout:   proc.Stream(stdout.write),
		Stderr:   proc.Stream(stderr.write),
		Timeout:  testDeadline,
		Linger:   200 * time.Millisecond,
		Drain:    200 * time.Millisecond,
		Launcher: f.sandbox(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range pidsAfter(t, stderr.String(), "escaped ") {
		if !goneNow(pid) {
			t.Errorf("the hook's daemon %d outlived it", pid)
		}
	}
	if !res.Exit.Success() || stdout.String() != "{\"decision\":\"allow\"}\n" {
		t.Errorf("hook result %+v, stdout %q, stderr %q", res, stdout.String(), stderr.String())
	}
}

// fakeShiroVar makes the test binary play shiro (see TestMain): it runs
// one sandboxed command that starts a process outside its group, prints
// the pids, and waits to be killed.
const fakeShiroVar = "SANDBOX_TEST_FAKE_SHIRO"

func runFakeShiro(policyJSON string) {
	var policy sandbox.Policy
	if err := json.Unmarshal([]byte(policyJSON), &policy); err != nil {
		panic(err)
	}
	sb, err := sandbox.New(policy)
	if err != nil {
		panic(err)
	}
	_, err = proc.Start(context.Background(), proc.Spec{
		Argv:          []string{"bash", "--norc", "-c", `setsid sleep 1000 & echo "escaped $!"; echo "supervisor $PPID"; echo "command $$"; exec sleep 1000`},
		Dir:           policy.Workspace,
		Stdout:        proc.Stream(func(b []byte) { _, _ = os.Stdout.Write(b) }),
		NewSession:    true,
		DieWithParent: true,
		Launcher:      sb,
	})
	if err != nil {
		panic(err)
	}
	// Every child of shiro (the helper kept for the session, running the
	// command) must die with shiro too.
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, path := range tasks {
		data, _ := os.ReadFile(path)
		for _, pid := range strings.Fields(string(data)) {
			fmt.Println("child " + pid)
		}
	}
	fmt.Println("ready")
	select {}
}

// When shiro is killed outright (SIGKILL: no cleanup of its own), the
// kernel tells the supervisor kept for the session, which stops
// everything, escaped processes included, and exits.
func TestKillingShiroTakesEveryCommandProcessWithIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	policy, err := json.Marshal(f.policy)
	if err != nil {
		t.Fatal(err)
	}
	shiro := exec.Command(os.Args[0], "-test.run=^$")
	shiro.Env = append(os.Environ(), fakeShiroVar+"="+string(policy))
	stdout, err := shiro.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	shiro.Stderr = os.Stderr
	if err := shiro.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shiro.Process.Kill(); _ = shiro.Wait() })
	lines := make(chan string)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
	}()
	var printed strings.Builder
	timeout := time.After(testDeadline)
	for !strings.Contains(printed.String(), "command ") || !strings.Contains(printed.String(), "ready\n") {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("fake shiro ended early: %q", printed.String())
			}
			printed.WriteString(line + "\n")
		case <-timeout:
			t.Fatalf("fake shiro printed %q", printed.String())
		}
	}
	var pids []int
	for _, prefix := range []string{"escaped ", "supervisor ", "command ", "child "} {
		pids = append(pids, pidsAfter(t, printed.String(), prefix)...)
	}
	if err := shiro.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := shiro.Wait(); err == nil || !errors.As(err, new(*exec.ExitError)) {
		t.Fatalf("fake shiro: %v", err)
	}
	for _, pid := range pids {
		if !exits(t, pid) {
			t.Errorf("process %d outlived shiro", pid)
		}
	}
}
