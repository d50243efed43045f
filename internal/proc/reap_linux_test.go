package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// startStranger starts a process the way a previous shiro would have
// started a job's leader: leading its own session and group, optionally
// with a job token in its environment. It is reaped by the test.
func startStranger(t *testing.T, token string, args ...string) *exec.Cmd {
	t.Helper()
	if len(args) == 0 {
		args = []string{"sleep", "300"}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if token != "" {
		cmd.Env = append(os.Environ(), JobTokenVar+"="+token)
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
func deadOwner(t *testing.T) Identity {
	t.Helper()
	boot, err := bootID()
	if err != nil {
		t.Fatal(err)
	}
	return Identity{PID: os.Getpid(), StartTicks: 1, BootID: boot}
}

func entryFor(t *testing.T, handle int, cmd *exec.Cmd, token string, owner Identity) JournalEntry {
	t.Helper()
	id, err := IdentityOf(cmd.Process.Pid)
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
	journal := filepath.Join(t.TempDir(), "backgrounds.json")
	// A shell with a child in its group, as a job would have. Its output
	// goes through a pipe, so the test learns the child's pid without
	// polling a file.
	job := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	job.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdout, err := job.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = job.Process.Kill()
		_ = job.Wait()
	})
	var child int
	if _, err := fmt.Fscan(stdout, &child); err != nil || child <= 1 {
		t.Fatalf("child pid %d: %v", child, err)
	}
	killOnCleanup(t, child)
	writeJournal(t, journal, []JournalEntry{entryFor(t, 3, job, "", deadOwner(t))})

	report, err := Reap(journal)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Killed) != 1 || report.Killed[0].Handle != 3 || len(report.Gone)+len(report.Kept) != 0 {
		t.Errorf("report %+v", report)
	}
	if !exited(t, child) {
		t.Errorf("the job's child %d survived", child)
	}
	if !exitedBySIGKILL(job) {
		t.Errorf("job shell ended with %v", job.ProcessState)
	}
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
		if !running(c.Process.Pid) {
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
	if !running(bystander.Process.Pid) {
		t.Error("a process with another token was killed")
	}
}

func TestReapKeepsTheJobsOfARunningShiro(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "backgrounds.json")
	otherShiro := startStranger(t, "")
	owner, err := IdentityOf(otherShiro.Process.Pid)
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
	if !running(job.Process.Pid) {
		t.Error("the job of a running shiro was killed")
	}
	if entries := readJournal(t, journal); len(entries) != 1 {
		t.Errorf("journal %+v", entries)
	}
}

func TestReapMovesACorruptJournalAside(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "backgrounds.json")
	for _, content := range []string{
		"{not json",
		`[{"handle":1,"pid":1234,"pgid":1,"command":"x","owner":{"pid":5}}]`,
	} {
		writeFile(t, journal, content)
		_, err := Reap(journal)
		if err == nil || !strings.Contains(err.Error(), journal) || !strings.Contains(err.Error(), journal+".corrupt") {
			t.Errorf("%s: error %v", content, err)
		}
		if _, err := os.Stat(journal); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the corrupt journal was left in place", content)
		}
		if data, _ := os.ReadFile(journal + ".corrupt"); string(data) != content {
			t.Errorf("%s: moved aside as %q", content, data)
		}
	}
	if report, err := Reap(filepath.Join(dir, "none.json")); err != nil || len(report.Killed) != 0 {
		t.Errorf("missing journal: %+v, %v", report, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Error("reaping a missing journal created it")
	}
}
