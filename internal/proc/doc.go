// Package proc runs the commands shiro starts on the model's or the
// person's behalf (bash, background jobs, hooks, run_checks) and makes sure
// that nothing they start outlives its welcome.
//
// # One command's life
//
// Start launches Spec.Argv as the leader of a process group of its own (of
// a session of its own with Spec.NewSession, which also takes the
// controlling terminal away), so that one signal to the group reaches
// everything the command forks. Stdin is Spec.Stdin or /dev/null; stdout
// and stderr are drained by goroutines of their own into Spec.Stdout and
// Spec.Stderr, so a command that fills one pipe while the other is read
// never deadlocks.
//
// The leader then runs until it exits, Spec.Timeout passes, or the context
// given to Start ends. In the last two cases the group is stopped: SIGTERM
// (and SIGCONT, since a stopped process acts on SIGTERM only once it is
// continued), Spec.Grace for the group to go, then SIGKILL. A zero Grace
// means SIGKILL at once.
//
// Once the leader has exited, whatever it left running in its group is
// stopped the same way (Result.Leftovers says whether there was any). With
// Spec.Linger the output is first given that long to end, and output still
// open then counts as held (Result.OutputHeld): hooks must not leave
// anything behind that holds their output. Finally a process that left the
// group (setsid, a daemon) but still holds a pipe gets Spec.Drain, after
// which the pipes are closed under it. Wait returns when all of that is
// done, so an escaped process can delay a command by at most Drain (and
// Linger).
//
// # Dying with shiro
//
// With Spec.DieWithParent the command is also stopped when shiro dies
// without cleaning up (SIGKILL, a crash): the leader gets Pdeathsig on
// Linux, and a watchdog, a tiny /bin/sh in a session of its own, kills the
// whole group when a "lifeline" pipe that only shiro holds is closed by the
// kernel. See watchdog_unix.go.
//
// # Background jobs
//
// A Journal records the background jobs a shiro runs; Reap, run at
// start-up, stops those that a shiro which is gone left behind, killing
// only processes it can verify as the ones that were started (by Identity:
// pid, start time and boot, or by the job token in their environment).
//
// # The sandbox seam
//
// Every command goes through Spec.Launcher, when one is set, right before
// it is executed: the launcher is given the Exec (argv, directory,
// environment, and the Spec's Grace) the Spec describes and returns the
// Exec to run in its place. The process the launcher's Exec starts leads
// the group, its exit status is the command's, its output is the
// command's, and it is stopped, swept and watched over like any other.
// internal/sandbox is the launcher: hooks take it from
// hooks.Options.Launcher; bash, background jobs, run_checks and the git
// tools from workspace.Env.Launcher.
//
// On Linux the sandbox re-executes shiro as a helper and marks the Exec:
//
//   - Supervised: the helper calls Supervise, which runs the command as
//     its child, as a child subreaper, so that processes that leave the
//     group (setsid, a double fork) are still its descendants; it stops
//     them all when the command ends, when it gets SIGTERM (proc sends it
//     to the supervisor alone, instead of signalling the group) and when
//     shiro dies (the kernel sends it SIGTERM, Pdeathsig, which is why no
//     watchdog is started beside it);
//   - PrivateMounts: the helper starts in a user and mount namespace of
//     its own, where it may protect paths with read-only mounts (it keeps
//     CAP_SYS_ADMIN there as an ambient capability, whoever runs shiro,
//     and drops every capability before it starts the command);
//   - Handoff and Pool: the helper does not find the command in its
//     arguments but receives it, with its stdin, stdout and stderr, over a
//     control socket, so it can be started, mounted and confined before
//     the command exists. A Pool keeps one such helper waiting: the
//     command takes it, and the next one starts in the background (see
//     pool_linux.go). Starting shiro again costs milliseconds; handing a
//     command over costs two messages.
//
// A launcher that is also an Explainer is shown the end of a failed
// command's output and may append one line to its stderr saying that its
// confinement may be why (Result.Confinement).
package proc
