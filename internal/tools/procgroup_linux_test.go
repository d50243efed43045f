package tools

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startStranger starts a process the way a previous shiro would have
// started a job's shell: leading its own session and group, optionally
// with a job token in its environment. It is reaped by the test.
func startStranger(t *testing.T, token string, args ...string) *exec.Cmd {
	t.Helper()
	if len(args) == 0 {
		args = []string{"sleep", "300"}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if token != "" {
		cmd.Env = append(os.Environ(), jobTokenVar+"="+token)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// deadOwner is the identity of a shiro that no longer runs: its start time
// matches no process, whatever now has its pid.
func deadOwner(t *testing.T) ProcIdentity {
	t.Helper()
	boot, err := bootID()
	if err != nil {
		t.Fatal(err)
	}
	return ProcIdentity{PID: os.Getpid(), StartTicks: 1, BootID: boot}
}

func writeJournal(t *testing.T, path string, entries []JournalEntry) {
	t.Helper()
	data, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func entryFor(t *testing.T, handle int, cmd *exec.Cmd, token string, owner ProcIdentity) JournalEntry {
	t.Helper()
	id, err := processIdentity(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return JournalEntry{
		Handle: handle, PID: id.PID, PGID: id.PID, Command: strings.Join(cmd.Args, " "),
		StartTicks: id.StartTicks, BootID: id.BootID, Token: token, Owner: owner,
	}
}

// exitedBySIGKILL waits for cmd and reports whether SIGKILL ended it.
func exitedBySIGKILL(cmd *exec.Cmd) bool {
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestReapKillsAVerifiedStaleJobAndItsGroup(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "backgrounds.json")
	// A shell with a child in its group, as a job would have.
	job := startStranger(t, "", "sh", "-c", "sleep 300 & echo $! > "+filepath.Join(dir, "child.pid")+"; wait")
	waitUntil(t, "the child pid file", func() bool {
		data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
		return err == nil && strings.HasSuffix(string(data), "\n")
	})
	child := readPIDFile(t, filepath.Join(dir, "child.pid"))
	killOnCleanup(t, child)
	writeJournal(t, journal, []JournalEntry{entryFor(t, 3, job, "", deadOwner(t))})

	report, err := Reap(journal)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Killed) != 1 || report.Killed[0].Handle != 3 || len(report.Gone)+len(report.Kept) != 0 {
		t.Errorf("report %+v", report)
	}
	if !exitedBySIGKILL(job) {
		t.Errorf("job shell ended with %v", job.ProcessState)
	}
	waitUntil(t, "the job's child to die", func() bool { return pidGone(child) })
	if data, _ := os.ReadFile(journal); strings.TrimSpace(string(data)) != "[]" {
		t.Errorf("journal after reap: %s", data)
	}
}

func TestReapNeverKillsARecycledPID(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "backgrounds.json")
	stranger := startStranger(t, "")
	e := entryFor(t, 1, stranger, "", deadOwner(t))
	e.StartTicks-- // the recorded job started earlier: this is someone else
	other := startStranger(t, "")
	e2 := entryFor(t, 2, other, "", deadOwner(t))
	e2.BootID = "another-boot"
	writeJournal(t, journal, []JournalEntry{e, e2})

	report, err := Reap(journal)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Gone) != 2 || len(report.Killed) != 0 {
		t.Errorf("report %+v", report)
	}
	for _, c := range []*exec.Cmd{stranger, other} {
		if pidGone(c.Process.Pid) {
			t.Errorf("Reap killed %d, which was not its job", c.Process.Pid)
		}
	}
}

func TestReapFindsAJobsProcessesByToken(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "backgrounds.json")
	const token = "0123456789abcdef0123456789abcdef"
	orphan := startStranger(t, token)
	// The shell (its recorded leader) is gone; only the token is left.
	gone := startStranger(t, "", "true")
	_ = gone.Wait()
	e := JournalEntry{Handle: 1, PID: gone.Process.Pid, PGID: gone.Process.Pid, Command: "x",
		StartTicks: 12345, BootID: deadOwner(t).BootID, Token: token, Owner: deadOwner(t)}
	bystander := startStranger(t, "fedcba9876543210fedcba9876543210")
	writeJournal(t, journal, []JournalEntry{e})

	report, err := Reap(journal)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Killed) != 1 {
		t.Errorf("report %+v", report)
	}
	if !exitedBySIGKILL(orphan) {
		t.Errorf("orphan ended with %v", orphan.ProcessState)
	}
	if pidGone(bystander.Process.Pid) {
		t.Error("a process with another token was killed")
	}
}

func TestReapKeepsTheJobsOfARunningShiro(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "backgrounds.json")
	otherShiro := startStranger(t, "")
	owner, err := processIdentity(otherShiro.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	job := startStranger(t, "")
	writeJournal(t, journal, []JournalEntry{entryFor(t, 1, job, "", owner)})

	report, err := Reap(journal)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Kept) != 1 || len(report.Killed) != 0 {
		t.Errorf("report %+v", report)
	}
	if pidGone(job.Process.Pid) {
		t.Error("the job of a running shiro was killed")
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if entries, err := decodeJournal(data); err != nil || len(entries) != 1 {
		t.Errorf("journal %s: %v", data, err)
	}
}

func TestReapMovesACorruptJournalAside(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "backgrounds.json")
	for _, content := range []string{
		"{not json",
		`[{"handle":1,"pid":1234,"pgid":1,"command":"x","owner":{"pid":5}}]`,
	} {
		if err := os.WriteFile(journal, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Reap(journal)
		if err == nil || !strings.Contains(err.Error(), journal) || !strings.Contains(err.Error(), journal+".corrupt") {
			t.Errorf("%s: error %v", content, err)
		}
		if _, err := os.Stat(journal); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the corrupt journal was left in place", content)
		}
	}
	if report, err := Reap(filepath.Join(dir, "none.json")); err != nil || len(report.Killed) != 0 {
		t.Errorf("missing journal: %+v, %v", report, err)
	}
}

func TestJournalKeepsOtherShirosEntries(t *testing.T) {
	h := newBgHarness(t)
	if err := os.MkdirAll(filepath.Dir(h.journal), 0o700); err != nil {
		t.Fatal(err)
	}
	foreign := JournalEntry{Handle: 9, PID: 4242, PGID: 4242, Command: "other", Owner: ProcIdentity{PID: 77, StartTicks: 5, BootID: "b"}}
	writeJournal(t, h.journal, []JournalEntry{foreign})
	h.start(t, "sleep 300", "")
	entries := h.readJournal(t)
	if len(entries) != 2 || entries[0].Handle != 9 || entries[1].Handle != 1 {
		t.Errorf("journal %+v", entries)
	}
}

func TestParseProcStat(t *testing.T) {
	st, err := parseProcStat([]byte("42 (a) b (c)) S 1 40 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615"))
	if err != nil {
		t.Fatal(err)
	}
	if st != (procStat{State: 'S', PGRP: 40, StartTicks: 987654}) {
		t.Errorf("parsed %+v", st)
	}
	for _, bad := range []string{"", "42 (x", "42 (x) S 1 2", "42 (x) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The helper process of TestBackgroundDiesWithShiro: a stand-in for shiro
// that starts one background job and then waits to be killed.
func TestBackgroundHelperProcess(t *testing.T) {
	dir := os.Getenv("SHIRO_TOOLS_TEST_HELPER")
	if dir == "" {
		t.Skip("helper for TestBackgroundDiesWithShiro")
	}
	env, err := NewEnv(dir)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	env.ShellEnv = append(os.Environ(), "HOME="+dir)
	bg := NewBackground(filepath.Join(dir, "backgrounds.json"), env, func(_, chunk string) { fmt.Print(chunk) })
	j, err := bg.start(env, `sleep 300 & echo "grandchild $!"; wait`, "")
	if j == nil {
		fmt.Println("error", err)
		return
	}
	shell := j.proc.(*unixShell)
	fmt.Println("shell", shell.pid)
	fmt.Println("watchdog", shell.watchdog.Process.Pid)
	if os.Getenv("SHIRO_TOOLS_TEST_HELPER_NO_WATCHDOG") != "" {
		_ = shell.watchdog.Process.Kill()
		_ = shell.watchdog.Wait()
		fmt.Println("watchdog killed")
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test kills us
}

// runHelper starts the helper process and reads the pids it reports.
func runHelper(t *testing.T, extraEnv ...string) (helper *exec.Cmd, pids map[string]int) {
	t.Helper()
	dir := t.TempDir()
	helper = exec.Command(os.Args[0], "-test.run=^TestBackgroundHelperProcess$", "-test.count=1")
	helper.Env = append(append(os.Environ(), "SHIRO_TOOLS_TEST_HELPER="+dir), extraEnv...)
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
		var name string
		var pid int
		if _, err := fmt.Sscanf(line, "%s %d", &name, &pid); err == nil && pid > 1 {
			pids[name] = pid
			killOnCleanup(t, pid)
		}
		if strings.HasPrefix(line, "error") {
			t.Fatalf("helper: %s", line)
		}
	}
	if pids["shell"] == 0 || pids["grandchild"] == 0 || pids["watchdog"] == 0 {
		t.Fatalf("helper reported %v (scan error %v)", pids, lines.Err())
	}
	for name, pid := range pids {
		if pidGone(pid) && name != "watchdog" {
			t.Fatalf("%s %d is not running before the kill", name, pid)
		}
	}
	return helper, pids
}

func TestBackgroundDiesWithShiro(t *testing.T) {
	helper, pids := runHelper(t)
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	for name, pid := range pids {
		waitUntil(t, fmt.Sprintf("%s %d to die with its shiro", name, pid), func() bool { return pidGone(pid) })
	}
}

// Without the watchdog, Pdeathsig still takes the shell down with shiro:
// this checks that the thread it is tied to lived as long as shiro.
func TestShellDiesWithShiroByPdeathsig(t *testing.T) {
	helper, pids := runHelper(t, "SHIRO_TOOLS_TEST_HELPER_NO_WATCHDOG=1")
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	shell := pids["shell"]
	waitUntil(t, fmt.Sprintf("shell %d to die with its shiro", shell), func() bool { return pidGone(shell) })
}

func TestWatchdogIgnoresTerminationSignals(t *testing.T) {
	env := testEnv(t)
	p, err := startShell(shellSpec{shell: "sh", command: "echo ready; exec sleep 300", dir: env.Root, env: env.CommandEnviron()})
	if err != nil {
		t.Fatal(err)
	}
	shell := p.(*unixShell)
	killOnCleanup(t, shell.pid)
	wd := shell.watchdog.Process.Pid
	waitUntil(t, "the watchdog to set its traps", func() bool {
		return ignoresSignal(wd, syscall.SIGTERM) && ignoresSignal(wd, syscall.SIGHUP) && ignoresSignal(wd, syscall.SIGINT)
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		_ = syscall.Kill(wd, sig)
	}
	// Closing the lifeline is what shiro's death does: the watchdog must
	// then kill the group. That it still can proves it ignored the signals.
	_ = shell.lifeline.Close()
	select {
	case <-p.Exited():
	case <-time.After(testDeadline):
		t.Fatal("the watchdog did not kill the command when its lifeline closed")
	}
	p.Finish(killTiming{grace: 0, drain: 0})
	if code := p.ExitCode(); code != 128+int(syscall.SIGKILL) {
		t.Errorf("shell exit %d, want death by SIGKILL from the watchdog", code)
	}
}

// ignoresSignal reads the SigIgn mask of /proc/<pid>/status.
func ignoresSignal(pid int, sig syscall.Signal) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		if mask, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
			return err == nil && bits&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("42 (a) b (c)) S 1 40 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"))
	f.Add([]byte("1 (x) Z 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseProcStat(data)
		if err == nil && st.State == 0 {
			t.Fatalf("parsed %q without a state", data)
		}
	})
}
