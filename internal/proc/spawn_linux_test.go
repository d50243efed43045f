package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// busyExecutable writes a script and keeps it open for writing, which makes
// exec fail with ETXTBSY until release is called.
func busyExecutable(t *testing.T) (path string, release func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "run")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("#!/bin/sh\nexit 0\n"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return path, func() { _ = f.Close() }
}

func TestStartRetriesAnExecutableStillOpenForWriting(t *testing.T) {
	t.Parallel()
	path, release := busyExecutable(t)
	attempts := 0
	cmd, err := startRetrying(t.Context(), func() *exec.Cmd {
		attempts++
		if attempts == 3 {
			release() // the writer lets go between the second and third try
		}
		return exec.Command(path)
	})
	if err != nil {
		t.Fatalf("after %d attempts: %v", attempts, err)
	}
	// A child forked elsewhere in this test binary at the wrong moment
	// may hold the file a little longer, which costs an attempt more.
	if err := cmd.Wait(); err != nil || attempts < 3 {
		t.Errorf("wait %v after %d attempts", err, attempts)
	}
}

func TestStartGivesUpOnABusyExecutable(t *testing.T) {
	t.Parallel()
	path, _ := busyExecutable(t)
	attempts := 0
	_, err := startRetrying(t.Context(), func() *exec.Cmd {
		attempts++
		return exec.Command(path)
	})
	if !errors.Is(err, syscall.ETXTBSY) || attempts != textBusyAttempts {
		t.Errorf("error %v after %d attempts, want ETXTBSY after %d", err, attempts, textBusyAttempts)
	}

	ctx, cancel := context.WithCancel(t.Context())
	attempts = 0
	_, err = startRetrying(ctx, func() *exec.Cmd {
		attempts++
		cancel() // the caller gives up while the first attempt fails
		return exec.Command(path)
	})
	if !errors.Is(err, syscall.ETXTBSY) || attempts != 1 {
		t.Errorf("cancelled: error %v after %d attempts, want one attempt", err, attempts)
	}
}
