package bash

import (
	"context"
	"path/filepath"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// ErrInterrupted is returned when the person stops a running command
// (ctrl-c or esc): the call's context was cancelled and the command's whole
// process group was killed.
var ErrInterrupted error = interruptedError{}

type interruptedError struct{}

func (interruptedError) Error() string {
	return "The user interrupted this command. It did not finish, so its effects are unknown."
}

// killTiming is how patiently a command is stopped.
type killTiming struct {
	// grace is how long a group gets between SIGTERM and SIGKILL.
	grace time.Duration
	// drain is how long a process that left the group may keep the output
	// pipes open after the command has ended.
	drain time.Duration
}

func defaultKillTiming() killTiming {
	return killTiming{grace: 2 * time.Second, drain: 500 * time.Millisecond}
}

// shellName is the shell commands run with: the workspace's, or bash.
func shellName(env *workspace.Env) string {
	if env == nil || env.Shell == "" {
		return "bash"
	}
	return env.Shell
}

// shellArgv is the argv of every command: `<shell> -c <command>`, the
// command one argument that is never spliced into anything else.
//
// It is not a login shell: a login shell reads /etc/profile and the
// user's profile, which on many systems reset PATH and so lose the
// virtualenv, nvm or toolchain directories shiro was started with, print
// banners into the output, and cost time on every command. The command
// gets shiro's own environment instead (Env.CommandEnviron). Bash is also
// given --norc: without it, a non-interactive bash that believes it was
// started by sshd (SSH_CLIENT set, SHLVL unset) still sources ~/.bashrc.
func shellArgv(env *workspace.Env, command string) []string {
	shell := shellName(env)
	if filepath.Base(shell) == "bash" {
		return []string{shell, "--norc", "-c", command}
	}
	return []string{shell, "-c", command}
}

// launcherOf is the workspace's launcher, the seam where an OS sandbox
// confines every command; nil runs commands directly.
func launcherOf(env *workspace.Env) proc.Launcher {
	if env == nil {
		return nil
	}
	return env.Launcher
}

// streamKind tells stdout from stderr.
type streamKind int

const (
	stdoutStream streamKind = iota
	stderrStream
)

// shellSpec is how every bash command runs, foreground or background: the
// shell in the workspace root (startShell may run the program in its
// place, when the shell would only exec it: direct), leading a session of its own (no
// controlling terminal, so prompts fail at once), with stdin from
// /dev/null, through the workspace's launcher, and dying with shiro.
func shellSpec(env *workspace.Env, command string, t killTiming, onOutput func(streamKind, []byte)) proc.Spec {
	return proc.Spec{
		Argv:          shellArgv(env, command),
		Dir:           env.Root,
		Env:           env.CommandEnviron(),
		Stdout:        proc.Stream(func(p []byte) { onOutput(stdoutStream, p) }),
		Stderr:        proc.Stream(func(p []byte) { onOutput(stderrStream, p) }),
		Grace:         t.grace,
		Drain:         t.drain,
		NewSession:    true,
		DieWithParent: true,
		Launcher:      launcherOf(env),
	}
}

// startShell starts spec, which shellSpec made for command, or the
// program in the shell's place when the shell would only exec it (direct).
// A program that could not be started at all (the sandbox refuses to
// execute it, say) ran nothing, so the shell then runs the line after all:
// it fails in its own words and exit code (126, 127), which is what the
// model knows and what the sandbox's hint reads.
func startShell(ctx context.Context, env *workspace.Env, command string, spec proc.Spec) (*proc.Process, error) {
	if program, ok := direct(env, command, spec); ok {
		if p, err := proc.Start(ctx, program); err == nil {
			return p, nil
		}
	}
	return proc.Start(ctx, spec)
}
