package proc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestRunReportsHowTheLeaderEnded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		script    string
		want      Exit
		text      string
		shellCode int
	}{
		{"true", Exit{Code: 0}, "exit 0", 0},
		{"exit 3", Exit{Code: 3}, "exit 3", 3},
		{"kill -TERM $$", Exit{Code: -1, Signal: syscall.SIGTERM}, "signal: terminated", 143},
		{"kill -KILL $$", Exit{Code: -1, Signal: syscall.SIGKILL}, "signal: killed", 137},
	} {
		res := mustRun(t, Spec{Argv: sh(c.script)})
		if res.Exit != c.want || res.Exit.String() != c.text || res.Exit.ShellCode() != c.shellCode {
			t.Errorf("%s: exit %+v (%q, shell code %d), want %+v (%q, %d)",
				c.script, res.Exit, res.Exit, res.Exit.ShellCode(), c.want, c.text, c.shellCode)
		}
		if res.Exit.Success() != (c.script == "true") || res.Exit.Exited() != (c.want.Signal == 0) {
			t.Errorf("%s: Success %v, Exited %v", c.script, res.Exit.Success(), res.Exit.Exited())
		}
		if res.Stopped != nil || res.Leftovers || res.OutputHeld {
			t.Errorf("%s: result %+v", c.script, res)
		}
	}
}

func TestTimeoutStopsTheWholeGroup(t *testing.T) {
	t.Parallel()
	errs := newCollector()
	res := mustRun(t, Spec{
		Argv:    sh(`sleep 300 & echo child $! >&2; wait`),
		Stderr:  errs.stream(),
		Timeout: 2 * time.Second, // room for sh to print before it fires
		Grace:   time.Second,
	})
	child := errs.pidAfter(t, "child ")
	if !errors.Is(res.Stopped, ErrTimedOut) || res.Exit.Signal != syscall.SIGTERM || res.Leftovers {
		t.Errorf("result %+v, want stopped by the timeout with SIGTERM", res)
	}
	if !exited(t, child) {
		t.Errorf("child %d survived the timeout", child)
	}
}

func TestCancelStopsTheGroupWithTheCause(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	errs := newCollector()
	p, err := Start(ctx, Spec{Argv: sh(`sleep 300 & echo child $! >&2; wait`), Stderr: errs.stream(), Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	errs.waitFor(t, "\n")
	child := errs.pidAfter(t, "child ")
	select {
	case <-p.Done():
		t.Fatal("done before it was stopped")
	default:
	}
	errStop := errors.New("the person pressed esc")
	cancel(errStop)
	res := p.Wait()
	if !errors.Is(res.Stopped, errStop) || res.Exit.Signal != syscall.SIGTERM {
		t.Errorf("result %+v, want stopped by %v", res, errStop)
	}
	if !exited(t, child) {
		t.Errorf("child %d survived the cancel", child)
	}
}

// stopAfter starts script, waits for it to print "child <pid>" on stderr,
// cancels it and returns the result and the child's pid.
func stopAfter(t *testing.T, spec Spec) (Result, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	errs := newCollector()
	spec.Stderr = errs.stream()
	p, err := Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	errs.waitFor(t, "\n")
	child := errs.pidAfter(t, "child ")
	cancel()
	return p.Wait(), child
}

func TestWhatIgnoresSIGTERMIsKilledAfterTheGrace(t *testing.T) {
	t.Parallel()
	res, child := stopAfter(t, Spec{
		Argv:  sh(`trap '' TERM; sleep 300 & echo child $! >&2; wait`),
		Grace: 100 * time.Millisecond,
	})
	if res.Exit.Signal != syscall.SIGKILL || !errors.Is(res.Stopped, context.Canceled) {
		t.Errorf("result %+v, want SIGKILL after the grace", res)
	}
	if !exited(t, child) {
		t.Errorf("child %d ignoring SIGTERM survived", child)
	}
}

// With a grace the group is asked first (its TERM trap exits 7); without
// one it is killed outright.
func TestGraceDecidesBetweenAskingAndKilling(t *testing.T) {
	t.Parallel()
	script := `trap 'exit 7' TERM; sleep 300 & echo child $! >&2; wait`
	asked, _ := stopAfter(t, Spec{Argv: sh(script), Grace: testDeadline})
	if asked.Exit != (Exit{Code: 7}) {
		t.Errorf("with a grace: exit %+v, want the TERM trap's 7", asked.Exit)
	}
	killed, _ := stopAfter(t, Spec{Argv: sh(script)})
	if killed.Exit.Signal != syscall.SIGKILL {
		t.Errorf("without a grace: exit %+v, want SIGKILL", killed.Exit)
	}
}

// A stopped process acts on SIGTERM only once continued: without the
// SIGCONT it would sit out the whole grace and die by SIGKILL.
func TestAStoppedCommandIsContinuedToStop(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := Start(ctx, Spec{Argv: sh(`kill -STOP $$; sleep 300`), Grace: testDeadline})
	if err != nil {
		t.Fatal(err)
	}
	// The leader is our child: waitid reports its stop without reaping.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.PID(), &info, unix.WSTOPPED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	cancel()
	if res := p.Wait(); res.Exit.Signal != syscall.SIGTERM {
		t.Errorf("exit %+v, want SIGTERM acted on", res.Exit)
	}
}

func TestLeftoversAreStoppedWhenTheLeaderExits(t *testing.T) {
	t.Parallel()
	errs := newCollector()
	res := mustRun(t, Spec{Argv: sh(`sleep 300 & echo child $! >&2`), Stderr: errs.stream(), Grace: time.Second})
	child := errs.pidAfter(t, "child ")
	if !res.Exit.Success() || res.Stopped != nil || !res.Leftovers {
		t.Errorf("result %+v, want leftovers reported", res)
	}
	if !exited(t, child) {
		t.Errorf("leftover %d still runs", child)
	}
}

// Linger tells output held by a leftover from a leftover that let go of it.
// A process that left the group cannot be stopped with it, but it cannot
// hold shiro either: after the drain its pipes are closed under it, and
// its output is not delivered after Wait.
func TestSessionOrGroup(t *testing.T) {
	t.Parallel()
	script := `read -r pid comm state ppid pgrp session rest < /proc/$$/stat; echo "$$ $pgrp $session"`
	for _, newSession := range []bool{true, false} {
		out := newCollector()
		mustRun(t, Spec{Argv: sh(script), Stdout: out.stream(), NewSession: newSession})
		var pid, pgrp, session int
		if _, err := fmt.Sscanf(out.String(), "%d %d %d", &pid, &pgrp, &session); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if pgrp != pid || (session == pid) != newSession {
			t.Errorf("NewSession %v: pid %d, group %d, session %d", newSession, pid, pgrp, session)
		}
	}
}

// launcher runs every command under a wrapper script, the way a sandbox
// helper would, and keeps what it was asked to launch.
type launcher struct {
	saw Exec
	err error
}

func (l *launcher) Launch(x Exec) (Exec, error) {
	l.saw = x
	if l.err != nil {
		return Exec{}, l.err
	}
	wrapper := append([]string{"/bin/sh", "-c", `echo "wrapped in $PWD"; exec "$@"`, "wrapper"}, x.Argv...)
	return Exec{Argv: wrapper, Dir: x.Dir, Env: append(x.Env, "WRAPPED=yes")}, nil
}

func TestALauncherDecidesWhatRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := &launcher{}
	out := newCollector()
	spec := Spec{Argv: sh(`echo "inner $WRAPPED"; exit 5`), Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: out.stream(), Launcher: l}
	res := mustRun(t, spec)
	if res.Exit.Code != 5 || out.String() != "wrapped in "+dir+"\ninner yes\n" {
		t.Errorf("exit %+v, output %q", res.Exit, out)
	}
	if strings.Join(l.saw.Argv, " ") != strings.Join(spec.Argv, " ") || l.saw.Dir != dir || len(l.saw.Env) != 1 {
		t.Errorf("the launcher saw %+v", l.saw)
	}

	refused := errors.New("policy refuses")
	_, err := Run(t.Context(), Spec{Argv: []string{"/bin/echo", "x"}, Launcher: &launcher{err: refused}})
	if !errors.Is(err, refused) || !strings.Contains(err.Error(), "/bin/echo") {
		t.Errorf("launcher error: %v", err)
	}
}

func TestStartRefusesBadSpecs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{}, "Spec.Argv is empty"},
		{Spec{Argv: []string{""}}, "Spec.Argv is empty"},
		{Spec{Argv: []string{"true"}, Stdout: SameAsStdout{}}, "stdout cannot be SameAsStdout"},
		{Spec{Argv: []string{"true"}, Grace: -1}, "negative duration"},
		{Spec{Argv: []string{"shiro-no-such-program"}}, "shiro-no-such-program"},
		{Spec{Argv: []string{"true"}, Dir: "/no/such/dir"}, "/no/such/dir"},
	} {
		_, err := Start(t.Context(), c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.spec, err, c.want)
		}
	}
}

func TestManyCommandsAtOnce(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			out := newCollector()
			res, err := Run(t.Context(), Spec{Argv: sh(fmt.Sprintf("echo %d; exit %d", i, i)), Stdout: out.stream(), DieWithParent: i%2 == 0, NewSession: true})
			if err != nil || res.Exit.Code != i || out.String() != fmt.Sprintf("%d\n", i) {
				t.Errorf("command %d: %+v %v, output %q", i, res, err, out)
			}
		})
	}
	wg.Wait()
}

// An escaped process that keeps writing is cut off: nothing it writes is
// delivered once Wait has returned.
