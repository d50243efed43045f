// Package supervise runs a command under a supervisor that the sandbox
// starts in its place: a helper program that is a child subreaper, so
// that nothing the command starts (setsid, a double fork) outlives it,
// and that may sit in private mounts and confine the thread that starts
// the command (internal/sandbox decides how).
//
// The sandbox's launcher returns a proc.Exec whose Starter is a Launch:
// proc opens the command's pipes and calls Launch.Start, which gives the
// command, with its stdin, stdout and stderr, to a supervisor over a
// control socket (handoff_linux.go): one waiting in a Pool, started,
// mounted and confined ahead, or a new one. The supervisor program calls
// Supervise (supervise_linux.go), which also holds the command to its
// Limits (rlimits, a pids and a memory cgroup of its own). From then on
// the supervisor is the command's leader for proc: proc streams, times
// out, stops and reaps it like any other, and this package neither
// streams nor times out anything.
//
// So a command goes sandbox → supervise → proc, never back.
package supervise
