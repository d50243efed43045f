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
// A launcher may also say how the leader is started (Exec.Starter):
// proc then opens the command's pipes and hands them to the Starter,
// which starts the leader with StartProgram and may pass it files,
// namespaces or a command it receives some other way, or adopts one that
// a supervisor kept for the session started and will report the end of
// (AdoptLeader). What happens next is proc's again. A leader started as a supervisor (Program.Supervisor)
// stops everything the command started, in its group or not, when it
// gets SIGTERM, so proc signals it alone instead of the group, gives it
// Grace and SupervisorSlack, has the kernel send it SIGTERM when shiro
// dies and starts no watchdog beside it. The sandbox's supervisor, its
// pool of supervisors kept for the session and the hand-off of a command to one
// live in internal/supervise: proc knows nothing of pools or mounts.
//
// A launcher that is also an Explainer is shown the end of a failed
// command's output and may append one line to its stderr saying that its
// confinement may be why (Result.Confinement).
package proc
