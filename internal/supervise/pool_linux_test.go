package supervise

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

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
// and stdin; it returns the supervisor's pid as the command saw it.
func (f *poolFixture) run(t *testing.T) int {
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
	for _, want := range []string{"supervisor " + strconv.Itoa(p.PID()), "dir " + f.dir, "var handed", "stdin came through"} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	return p.PID()
}

// waiting is the supervisor the pool holds once the refill is done.
func (f *poolFixture) waiting(t *testing.T) *proc.Leader {
	t.Helper()
	f.pool.Ready()
	f.pool.mu.Lock()
	defer f.pool.mu.Unlock()
	if f.pool.idle == nil {
		t.Fatal("no supervisor is waiting in the pool")
	}
	return f.pool.idle.c
}

func TestThePoolServesTheNextCommandFromTheSupervisorWaiting(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
	first := f.run(t)
	waiting := f.waiting(t)
	if waiting.PID() == first {
		t.Fatalf("the waiting supervisor is the first command's (%d)", first)
	}
	if second := f.run(t); second != waiting.PID() {
		t.Errorf("second command ran under %d, not the supervisor waiting (%d)", second, waiting.PID())
	}
	if third := f.run(t); third == waiting.PID() {
		t.Errorf("a supervisor ran two commands (%d)", third)
	}
}

func TestAWaitingSupervisorExitsWhenThePoolCloses(t *testing.T) {
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
		t.Errorf("the waiting supervisor exited with %d, want 0", code)
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
	if got := f.run(t); got == waiting.PID() {
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
	if got := f.run(t); got == waiting.PID() {
		t.Errorf("the supervisor started for key a (%d) ran a command for key b", got)
	}
	if !proctest.Exited(t, waiting.PID(), testDeadline) {
		t.Errorf("the supervisor for the old key (%d) did not exit", waiting.PID())
	}
}

// A supervisor set up ahead that could not set itself up still takes the
// command, to say why on the command's stderr, where the person looks;
// its own stderr goes nowhere.
func TestASupervisorThatCannotSetUpSaysWhyOnTheCommandsStderr(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t)
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
