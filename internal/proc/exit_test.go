package proc

import (
	"syscall"
	"testing"
)

func TestExitWording(t *testing.T) {
	for _, c := range []struct {
		exit      Exit
		text      string
		shellCode int
	}{
		{Exit{Code: 0}, "exit 0", 0},
		{Exit{Code: 4}, "exit 4", 4},
		{Exit{Code: -1, Signal: syscall.SIGKILL}, "signal: killed", 137},
		{Exit{Code: -1}, "exit -1", -1},
	} {
		if c.exit.String() != c.text || c.exit.ShellCode() != c.shellCode {
			t.Errorf("%+v: %q and %d, want %q and %d", c.exit, c.exit, c.exit.ShellCode(), c.text, c.shellCode)
		}
	}
	if (Exit{Code: -1}).Exited() {
		t.Error("an unknown end counts as an exit")
	}
}

func TestSignalName(t *testing.T) {
	for sig, want := range map[syscall.Signal]string{
		syscall.SIGSEGV:    "SIGSEGV (segmentation fault)",
		syscall.SIGKILL:    "SIGKILL (killed)",
		syscall.SIGTERM:    "SIGTERM (terminated)",
		syscall.Signal(77): syscall.Signal(77).String(),
	} {
		if got := SignalName(sig); got != want {
			t.Errorf("SignalName(%d) = %q, want %q", int(sig), got, want)
		}
	}
}
