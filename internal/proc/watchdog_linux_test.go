package proc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDieWithParentHelper is not a test: it is the stand-in for shiro that
// the tests below start and kill. It starts one command with DieWithParent
// and reports the pids involved, then waits to be killed.
func TestDieWithParentHelper(t *testing.T) {
	if os.Getenv("SHIRO_PROC_TEST_HELPER") == "" {
		t.Skip("helper process for TestCommandsDieWithShiro")
	}
	p, err := Start(context.Background(), Spec{
		Argv:          sh(`sleep 300 & echo "grandchild $!"; wait`),
		Stdout:        Stream(func(b []byte) { _, _ = os.Stdout.Write(b) }),
		NewSession:    true,
		DieWithParent: true,
	})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("leader", p.PID())
	fmt.Println("watchdog", p.guard.cmd.Process.Pid)
	if os.Getenv("SHIRO_PROC_TEST_HELPER") == "no-watchdog" {
		_ = p.guard.cmd.Process.Kill()
		_ = p.guard.cmd.Wait()
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test kills us
}

// runHelper starts the helper process and reads the pids it reports.
func runHelper(t *testing.T, mode string) (helper *exec.Cmd, pids map[string]int) {
	t.Helper()
	helper = exec.Command(os.Args[0], "-test.run=^TestDieWithParentHelper$", "-test.count=1")
	helper.Env = append(os.Environ(), "SHIRO_PROC_TEST_HELPER="+mode)
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
	pids = map[string]int{}
	ready := false
	lines := bufio.NewScanner(stdout)
	for !ready || pids["grandchild"] == 0 {
		if !lines.Scan() {
			break
		}
		line := lines.Text()
		ready = ready || line == "ready"
		if name, num, ok := strings.Cut(line, " "); ok {
			if pid, err := strconv.Atoi(num); err == nil && pid > 1 {
				pids[name] = pid
				killOnCleanup(t, pid)
			}
		}
		if strings.HasPrefix(line, "error") {
			t.Fatalf("helper: %s", line)
		}
	}
	if pids["leader"] == 0 || pids["grandchild"] == 0 || pids["watchdog"] == 0 {
		t.Fatalf("helper reported %v (scan error %v)", pids, lines.Err())
	}
	for _, name := range []string{"leader", "grandchild"} {
		if !running(pids[name]) {
			t.Fatalf("%s %d is not running before the kill", name, pids[name])
		}
	}
	return helper, pids
}

func TestCommandsDieWithShiro(t *testing.T) {
	t.Parallel()
	helper, pids := runHelper(t, "watchdog")
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	for name, pid := range pids {
		if !exited(t, pid) {
			t.Errorf("%s %d outlived its shiro", name, pid)
		}
	}
}

// Without the watchdog, Pdeathsig still takes the leader down with shiro:
// this checks that the thread it is tied to lived as long as shiro.
func TestLeaderDiesWithShiroByPdeathsig(t *testing.T) {
	t.Parallel()
	helper, pids := runHelper(t, "no-watchdog")
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	if leader := pids["leader"]; !exited(t, leader) {
		t.Errorf("leader %d outlived its shiro", leader)
	}
}

func TestWatchdogIgnoresTerminationSignals(t *testing.T) {
	t.Parallel()
	p, err := Start(t.Context(), Spec{Argv: sh("exec sleep 300"), NewSession: true, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	killOnCleanup(t, p.PID())
	wd := p.guard.cmd.Process.Pid
	// The script sets its traps first thing; the kernel offers no event
	// for that, so the test checks the watchdog's ignored-signal mask until
	// it shows them (or testDeadline passes).
	terminations := []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT}
	deadline := time.Now().Add(testDeadline)
	for !ignoresAll(t, wd, terminations) {
		if time.Now().After(deadline) {
			t.Fatalf("the watchdog never ignored %v", terminations)
		}
		time.Sleep(time.Millisecond)
	}
	for _, sig := range terminations {
		_ = syscall.Kill(wd, sig)
	}
	// Closing the lifeline is what shiro's death does: the watchdog must
	// then kill the group. That it still can proves it ignored the signals.
	_ = p.guard.lifeline.Close()
	if res := p.Wait(); res.Exit.Signal != syscall.SIGKILL || res.Stopped != nil {
		t.Errorf("result %+v, want death by SIGKILL from the watchdog", res)
	}
}

// ignoresAll reads the SigIgn mask of /proc/<pid>/status.
func ignoresAll(t *testing.T, pid int, sigs []syscall.Signal) bool {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("watchdog %d: %v", pid, err)
	}
	for line := range strings.Lines(string(data)) {
		if mask, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
			if err != nil {
				t.Fatalf("SigIgn %q: %v", mask, err)
			}
			for _, sig := range sigs {
				if bits&(1<<(uint(sig)-1)) == 0 {
					return false
				}
			}
			return true
		}
	}
	t.Fatalf("no SigIgn in /proc/%d/status", pid)
	return false
}
