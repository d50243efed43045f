package supervise

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/proc/proctest"
)

// TestPoolSupervisor is not a test: it is the supervisor the pool tests
// start, taking its command by handoff. Its Check finds its preparation
// stale once the file named by SHIRO_PROC_TEST_STALE holds something
// other than what it held when the supervisor started.
func TestPoolSupervisor(t *testing.T) {
	if os.Getenv("SHIRO_PROC_TEST_SUPERVISOR") == "" {
		t.Skip("supervisor process for the pool tests")
	}
	staleFile := os.Getenv("SHIRO_PROC_TEST_STALE")
	read := func() string { data, _ := os.ReadFile(staleFile); return string(data) }
	prepared := read()
	ExitAs(Supervise(Supervision{
		Handoff: HandoffFile(),
		Parent:  os.Getppid(),
		Prepare: func() error {
			if os.Getenv("SHIRO_PROC_TEST_PREPARE_FAILS") != "" {
				return errors.New("the mounts could not be made")
			}
			return nil
		},
		Check: func() error {
			if read() != prepared {
				return errors.New("the marker changed")
			}
			return nil
		},
		Notices: os.Stderr,
	}))
}

// poolLauncher runs commands under TestPoolSupervisor, through pool.
type poolLauncher struct {
	pool      *Pool
	key       string
	staleFile string
	env       []string // more for the supervisor
}

func (l *poolLauncher) Launch(x proc.Exec) (proc.Exec, error) {
	env := x.Env
	if env == nil {
		env = os.Environ()
	}
	x.Starter = &Launch{
		Argv:    []string{os.Args[0], "-test.run=^TestPoolSupervisor$", "-test.count=1"},
		Env:     append(append(os.Environ(), "SHIRO_PROC_TEST_SUPERVISOR=1", "SHIRO_PROC_TEST_STALE="+l.staleFile), l.env...),
		Command: &Handoff{Argv: x.Argv, Dir: x.Dir, Env: env, Grace: x.Grace},
		Pool:    l.pool,
		PoolKey: l.key,
	}
	return x, nil
}

// poolFixture is a pool, a launcher through it and a command that says
// who runs it and with what.
type poolFixture struct {
	pool     *Pool
	launcher *poolLauncher
	dir      string
}

func newPoolFixture(t *testing.T) *poolFixture {
	t.Helper()
	pool := NewPool()
	t.Cleanup(pool.Close)
	dir := t.TempDir()
	return &poolFixture{pool: pool, dir: dir, launcher: &poolLauncher{pool: pool, key: "a", staleFile: dir + "/marker"}}
}

// run runs the command and checks that it got its directory, environment
// and stdin; it returns the command's pid and the pid of the supervisor
// that ran it, as the command saw them.
func (f *poolFixture) run(t *testing.T) (pid, supervisor int) {
	t.Helper()
	out := newCollector()
	p, err := proc.Start(t.Context(), proc.Spec{
		Argv:       sh(`echo "supervisor $PPID"; echo "dir $PWD"; echo "var $POOL_TEST_VAR"; cat`),
		Dir:        f.dir,
		Env:        append(os.Environ(), "POOL_TEST_VAR=handed"),
		Stdin:      []byte("stdin came through\n"),
		Stdout:     out.stream(),
		Stderr:     proc.SameAsStdout{},
		NewSession: true,
		Launcher:   f.launcher,
	})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Wait()
	got := out.String()
	if !res.Exit.Success() {
		t.Fatalf("command failed (%s): %q", res.Exit, got)
	}
	for _, want := range []string{"dir " + f.dir, "var handed", "stdin came through"} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	_, after, _ := strings.Cut(got, "supervisor ")
	line, _, _ := strings.Cut(after, "\n")
	supervisor, err = strconv.Atoi(line)
	if err != nil {
		t.Fatalf("no supervisor's pid in %q", got)
	}
	return p.PID(), supervisor
}

// start starts script through the pool, its stdout and stderr to out.
func (f *poolFixture) start(t *testing.T, ctx context.Context, script string, out *collector) *proc.Process {
	t.Helper()
	p, err := proc.Start(ctx, proc.Spec{
		Argv:       sh(script),
		Stdout:     out.stream(),
		Stderr:     proc.SameAsStdout{},
		NewSession: true,
		Grace:      100 * time.Millisecond,
		Launcher:   f.launcher,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waiting is the supervisor the pool keeps for the next command.
func (f *poolFixture) waiting(t *testing.T) *proc.Leader {
	t.Helper()
	f.pool.mu.Lock()
	defer f.pool.mu.Unlock()
	if len(f.pool.idle) != 1 {
		t.Fatalf("%d supervisors wait in the pool, want 1", len(f.pool.idle))
	}
	return f.pool.idle[0].c
}

func TestOneSupervisorRunsTheSessionsCommandsOneAfterAnother(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	first, sup := f.run(t)
	if first == sup {
		t.Fatalf("the command (%d) is its own supervisor", first)
	}
	if waiting := f.waiting(t); waiting.PID() != sup {
		t.Fatalf("the pool keeps %d, not the supervisor that ran the command (%d)", waiting.PID(), sup)
	}
	second, again := f.run(t)
	if again != sup {
		t.Errorf("second command ran under %d, not the supervisor kept (%d)", again, sup)
	}
	if second == first {
		t.Errorf("two commands had the same pid %d", first)
	}
}

func TestAKeptSupervisorExitsWhenThePoolCloses(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	f.run(t)
	waiting := f.waiting(t)
	f.pool.Close()
	if !proctest.Exited(t, waiting.PID(), testDeadline) {
		t.Fatalf("supervisor %d still waits after Close", waiting.PID())
	}
	<-waiting.Exited()
	if code := waiting.Exit().Code; code != 0 {
		t.Errorf("the kept supervisor exited with %d, want the last command's 0", code)
	}
}

func TestAStaleSupervisorHandsTheCommandOnToAFreshOne(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	f.run(t)
	waiting := f.waiting(t)
	if err := os.WriteFile(f.launcher.staleFile, []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, got := f.run(t); got == waiting.PID() {
		t.Errorf("the stale supervisor (%d) ran the command", got)
	}
	if !proctest.Exited(t, waiting.PID(), testDeadline) {
		t.Errorf("the stale supervisor %d did not exit", waiting.PID())
	}
}

func TestASupervisorStartedForAnotherKeyIsNotUsed(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	f.run(t)
	waiting := f.waiting(t)
	f.launcher.key = "b"
	if _, got := f.run(t); got == waiting.PID() {
		t.Errorf("the supervisor started for key a (%d) ran a command for key b", got)
	}
	if !proctest.Exited(t, waiting.PID(), testDeadline) {
		t.Errorf("the supervisor for the old key (%d) did not exit", waiting.PID())
	}
}

// A command set apart otherwise (no session of its own) gets a
// supervisor of its own, and the one kept for the other kind stays.
func TestCommandsSetApartDifferentlyKeepASupervisorEach(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	_, sup := f.run(t)
	out := newCollector()
	res := mustRun(t, proc.Spec{Argv: sh(`echo "supervisor $PPID"`), Stdout: out.stream(), Launcher: f.launcher})
	if !res.Exit.Success() || strings.Contains(out.String(), "supervisor "+strconv.Itoa(sup)+"\n") {
		t.Errorf("a command without a session of its own: %s, %q (the other kind's supervisor is %d)", res.Exit, out.String(), sup)
	}
	if _, again := f.run(t); again != sup {
		t.Errorf("the next command ran under %d, not the supervisor kept for its kind (%d)", again, sup)
	}
}

// Whether a command asks to die with shiro does not set it apart: under
// a supervisor every command does. A session's secret scan (git, without
// DieWithParent) and its bash commands (with it) share one supervisor.
func TestCommandsThatDifferOnlyInDieWithParentShareTheSupervisor(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	_, sup := f.run(t)
	out := newCollector()
	res := mustRun(t, proc.Spec{Argv: sh(`echo "supervisor $PPID"`), Stdout: out.stream(), NewSession: true, DieWithParent: true, Launcher: f.launcher})
	if !res.Exit.Success() || !strings.Contains(out.String(), "supervisor "+strconv.Itoa(sup)+"\n") {
		t.Errorf("a command with DieWithParent: %s, %q; want it run by the supervisor kept (%d)", res.Exit, out.String(), sup)
	}
	if waiting := f.waiting(t); waiting.PID() != sup {
		t.Errorf("the pool keeps %d, want the one supervisor %d", waiting.PID(), sup)
	}
}

// Two commands at once get a supervisor each; both are kept.
func TestACommandBesideARunningOneGetsASupervisorOfItsOwn(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	out := newCollector()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	first, err := proc.Start(t.Context(), proc.Spec{
		Argv:        sh(`echo "supervisor $PPID"; cat >/dev/null`),
		StdinStream: r,
		Stdout:      out.stream(),
		NewSession:  true,
		Launcher:    f.launcher,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-out.seen
	_, second := f.run(t)
	if strings.Contains(out.String(), "supervisor "+strconv.Itoa(second)+"\n") {
		t.Errorf("the second command ran under the busy supervisor %d", second)
	}
	_ = w.Close()
	if res := first.Wait(); !res.Exit.Success() {
		t.Errorf("the first command: %s", res.Exit)
	}
	f.pool.mu.Lock()
	n := len(f.pool.idle)
	f.pool.mu.Unlock()
	if n != 2 {
		t.Errorf("%d supervisors kept, want 2", n)
	}
}

// A command that leaves a process behind in a session of its own is not
// over until that process is gone, under a kept supervisor as under one
// for a single command; the supervisor then takes the next command.
func TestAKeptSupervisorEndsACommandOnlyOnceWhatItLeftIsGone(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	pidFile := filepath.Join(f.dir, "escaped.pid")
	res := mustRun(t, proc.Spec{
		Argv:       sh(`setsid sh -c 'echo $$ > ` + pidFile + `; exec sleep 600' </dev/null >/dev/null 2>&1 & while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done`),
		NewSession: true,
		Grace:      100 * time.Millisecond,
		Launcher:   f.launcher,
	})
	if !res.Exit.Success() {
		t.Fatalf("command: %s", res.Exit)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if unix.Kill(escaped, 0) == nil {
		t.Errorf("process %d, which left the command's session, still runs after the command ended", escaped)
	}
	f.run(t)
}

// Stopping a command (a timeout) under a kept supervisor stops it and
// what it started, and leaves the supervisor for the next command.
func TestStoppingACommandLeavesItsSupervisorForTheNext(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	_, sup := f.run(t)
	ctx, cancel := context.WithCancel(t.Context())
	out := newCollector()
	p := f.start(t, ctx, `sleep 600 & echo started; wait`, out)
	<-out.seen
	cancel()
	res := p.Wait()
	if res.Stopped == nil || res.Exit.Success() {
		t.Errorf("stopped command: %+v", res)
	}
	if _, again := f.run(t); again != sup {
		t.Errorf("the next command ran under %d, not the kept supervisor %d", again, sup)
	}
}

// A kept supervisor that dies fails its command closed: the command is
// reported killed, with a line saying why, and the next command gets a
// new supervisor.
func TestACommandWhoseSupervisorDiesFailsAndTheNextGetsANewOne(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	_, sup := f.run(t)
	out := newCollector()
	p := f.start(t, t.Context(), `echo started; sleep 600`, out)
	<-out.seen
	if err := unix.Kill(sup, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := p.Wait()
	if res.Exit.Signal != unix.SIGKILL {
		t.Errorf("exit %s, want killed", res.Exit)
	}
	if got := out.String(); !strings.Contains(got, "supervisor ended while the command ran") {
		t.Errorf("output %q does not say why the command ended", got)
	}
	if _, next := f.run(t); next == sup {
		t.Errorf("the next command ran under the dead supervisor %d", sup)
	}
}

// A command the kept supervisor cannot start (its folder is gone) fails
// to start, with why, and the supervisor takes the next command.
func TestACommandThatCannotStartLeavesTheKeptSupervisorForTheNext(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	_, sup := f.run(t)
	_, err := proc.Start(t.Context(), proc.Spec{
		Argv:       sh(`true`),
		Dir:        filepath.Join(f.dir, "missing"),
		NewSession: true,
		Launcher:   f.launcher,
	})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("error %v, want one naming the missing folder", err)
	}
	if _, again := f.run(t); again != sup {
		t.Errorf("the next command ran under %d, not the kept supervisor %d", again, sup)
	}
}

// A supervisor kept for the session that could not set itself up refuses
// the command with why, and runs nothing.
func TestAKeptSupervisorThatCannotSetUpRefusesTheCommand(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	f.launcher.env = []string{"SHIRO_PROC_TEST_PREPARE_FAILS=1"}
	marker := filepath.Join(f.dir, "ran")
	_, err := proc.Start(t.Context(), proc.Spec{
		Argv:     sh(`touch ` + marker),
		Launcher: f.launcher,
	})
	if err == nil || !strings.Contains(err.Error(), "the mounts could not be made") {
		t.Errorf("error %v, want why the supervisor could not set up", err)
	}
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Error("the command ran")
	}
}

// A supervisor for one command (no pool) that could not set itself up
// still takes the command, to say why on the command's stderr, where the
// person looks; its own stderr goes nowhere.
func TestASupervisorThatCannotSetUpSaysWhyOnTheCommandsStderr(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	f.launcher.pool = nil
	f.launcher.env = []string{"SHIRO_PROC_TEST_PREPARE_FAILS=1"}
	out := newCollector()
	res := mustRun(t, proc.Spec{
		Argv:     sh(`echo ran`),
		Stdout:   out.stream(),
		Stderr:   proc.SameAsStdout{},
		Launcher: f.launcher,
	})
	if res.Exit.Code != ExitCannotRun {
		t.Errorf("exit %s, want %d", res.Exit, ExitCannotRun)
	}
	if got := out.String(); !strings.Contains(got, "shiro: cannot run /bin/sh: the mounts could not be made") || strings.Contains(got, "ran") {
		t.Errorf("output %q", got)
	}
}
