package proc

import (
	"context"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// adoptingStarter starts the command as a test's own child, not proc's,
// and hands proc a leader it does not reap, as a supervisor kept for the
// session does: the end proc reports is the one given to end, and proc
// stops the command only through stop.
type adoptingStarter struct {
	argv  []string
	stops atomic.Int32
}

func (a *adoptingStarter) Start(_ context.Context, _ Group, stdio [3]*os.File) (*Leader, error) {
	cmd := exec.Command(a.argv[0], a.argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	lead, end := AdoptLeader(pid, func() {
		a.stops.Add(1)
		_ = syscall.Kill(-pid, syscall.SIGTERM)
	})
	go func() {
		_ = cmd.Wait()
		// What the owner reports is proc's result, whatever the
		// process's own status was.
		end(Exit{Code: 7})
		end(Exit{Code: 9}) // a second end changes nothing
	}()
	return lead, nil
}

func (*adoptingStarter) Close() error { return nil }

type starterLauncher struct{ s Starter }

func (l starterLauncher) Launch(x Exec) (Exec, error) {
	x.Starter = l.s
	return x, nil
}

func TestAnAdoptedLeaderEndsAsItsOwnerReportsAndStopsThroughIt(t *testing.T) {
	t.Parallel()
	s := &adoptingStarter{argv: sh(`echo up; exec sleep 600`)}
	out := newCollector()
	ctx, cancel := context.WithCancel(t.Context())
	p, err := Start(ctx, Spec{
		Argv:     []string{"adopted"},
		Stdout:   out.stream(),
		Grace:    time.Second,
		Launcher: starterLauncher{s},
	})
	if err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "up")
	cancel()
	res := p.Wait()
	if res.Exit.Code != 7 {
		t.Errorf("exit %s, want what the owner reported (exit 7)", res.Exit)
	}
	if res.Stopped == nil {
		t.Error("the stopped command is not reported stopped")
	}
	if n := s.stops.Load(); n != 1 {
		t.Errorf("stop was called %d times, want 1", n)
	}
	if running(p.PID()) {
		t.Errorf("the adopted command %d still runs", p.PID())
	}
}
