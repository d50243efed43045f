//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tools

import (
	"errors"
	"runtime"
	"syscall"
)

// Commands need process groups and sessions to be stopped as a whole and to
// die with shiro. This system is not supported yet, so bash refuses to run
// rather than leave processes behind.

var errUnsupported = errors.New("bash is not supported on " + runtime.GOOS + " yet: commands could not be stopped as a whole")

func startShell(shellSpec) (runningShell, error) { return nil, errUnsupported }

func processIdentity(pid int) (ProcIdentity, error) { return ProcIdentity{PID: pid}, errUnsupported }

func leaderIsOurs(JournalEntry) bool { return false }

func ownerAlive(ProcIdentity) bool { return true }

func processesCarrying([]string) map[int]string { return map[int]string{} }

func signalGroup(int, syscall.Signal) error { return errUnsupported }

func signalProcess(int, syscall.Signal) error { return errUnsupported }

// lockFile has nothing to serialise here: no command can start, so no
// journal entry is ever written by this system.
func lockFile(string) (func(), error) { return func() {}, nil }
