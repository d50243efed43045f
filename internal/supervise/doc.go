// Package supervise runs a command under a supervisor that the sandbox
// starts in its place: a helper program that is a child subreaper, so
// that nothing the command starts (setsid, a double fork) outlives it,
// and that may sit in private mounts and confine the thread that starts
// the command (internal/sandbox decides how).
//
// The sandbox's launcher returns a proc.Exec whose Starter is a Launch:
// proc opens the command's pipes and calls Launch.Start, which gives the
// command, with its stdin, stdout and stderr, to a supervisor over a
// control socket (handoff_linux.go): with a Pool, the one kept for the
// session (pool_linux.go), which confines a fresh thread for each
// command, starts it in a group of its own and reports its end over the
// socket, so that proc adopts the command as a leader it does not reap
// (proc.AdoptLeader); without one, a supervisor that runs this command
// alone and is itself proc's leader. The supervisor program calls
// Supervise (supervise_linux.go), which also holds the command to its
// Limits (rlimits, a pids and a memory cgroup of its own). proc streams,
// times out, stops and waits for the command like any other, and this
// package neither streams nor times out anything.
//
// So a command goes sandbox → supervise → proc, never back.
package supervise
