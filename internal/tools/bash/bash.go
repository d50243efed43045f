// Package bash holds the tools that run programs: bash (foreground and
// background commands), bash_status and bash_stop over the session's
// background jobs, and run_checks, which runs the project's own tests,
// linters and builds.
//
// Every command runs through internal/proc: `<shell> -c <command>` in the
// workspace root, in a process group (for bash, a session) of its own, with
// the workspace's scrubbed environment (workspace.Env.CommandEnviron) and
// through the workspace's Launcher, the seam where an OS sandbox confines
// every command at once. A timeout, an interrupt or bash_stop stops the
// whole group, and commands die with shiro.
//
// The tools are built by two constructors, since they belong to different
// tool sets: Tools (bash, bash_status, bash_stop; set core) and Checks
// (run_checks; set extra). The composition root builds one Background per
// session, after Reap has stopped what an earlier shiro left behind.
package bash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Tools returns bash, bash_status and bash_stop working in env (nil
// means the Background's workspace). bg runs the background commands; when
// it is nil only bash is returned, and it refuses background: true.
func Tools(env *workspace.Env, bg *Background) []tool.Tool {
	if env == nil && bg != nil {
		env = bg.env
	}
	ts := []tool.Tool{bashTool(env, bg, defaultKillTiming())}
	if bg != nil {
		ts = append(ts, statusTool(bg), stopTool(bg))
	}
	return ts
}

// Timeout bounds of a foreground command, in milliseconds.
const (
	MinTimeoutMS     = 1_000
	MaxTimeoutMS     = 600_000
	DefaultTimeoutMS = 120_000
)

type bashInput struct {
	Command    string `json:"command" jsonschema:"The command line to run."`
	Timeout    *int   `json:"timeout,omitempty" jsonschema:"Milliseconds before the command and everything it started are killed (default 120000). Ignored with background."`
	Background bool   `json:"background,omitempty" jsonschema:"Start the command and return at once with a handle."`
	Name       string `json:"name,omitempty" jsonschema:"A short label for a background command."`
}

// bashTool is the bash tool; timing is a parameter so that tests can stop
// commands without the production grace.
func bashTool(env *workspace.Env, bg *Background, timing killTiming) tool.Tool {
	return tool.New(tool.Def[bashInput]{
		Info: tool.Info{
			Name: "bash",
			Description: "Run a shell command with `" + shellName(env) + " -c` in the workspace root. Stdin is empty and there is " +
				"no terminal, so interactive programs and prompts fail at once. Output streams live; the result " +
				"gives `exit: N`, then stdout and stderr, keeping the head and tail of long output. Processes the " +
				"command leaves running are stopped when it exits: start servers and watchers with " +
				"background: true, then read them with bash_status and stop them with bash_stop.",
			Guidance: "bash: run shell commands (builds, tests, git); use background: true for servers and watchers.",
			Set:      tool.SetCore,
			Effect:   tool.Runs,
			Kind:     protocol.KindExecute,
			Subject:  tool.CommandSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "timeout", MinTimeoutMS, MaxTimeoutMS) },
		Check: func(in *bashInput) error {
			if in.Command == "" {
				return tool.Failf("command is required")
			}
			return nil
		},
		Plan: func(in *bashInput) tool.Plan {
			return tool.Plan{
				Subjects: []string{in.Command},
				Commands: []string{in.Command},
				Title:    title(in.Command),
				Inert:    !in.Background && pureLineOf(env, in.Command) != nil,
			}
		},
		Run: func(ctx context.Context, rt tool.Runtime, in *bashInput) (tool.Result, error) {
			if env == nil {
				return tool.Result{}, errors.New("no workspace is set for bash")
			}
			if in.Background {
				if bg == nil {
					return tool.Result{}, tool.Failf("background commands are not available here; run the command without background")
				}
				return tool.TextOf(bg.startForTool(env, in.Command, in.Name))
			}
			timeout := tool.Or(in.Timeout, DefaultTimeoutMS)
			return runForeground(ctx, env, timing, in.Command, timeout, rt.Emit)
		},
	})
}

// runForeground runs a command to its end, streaming its output to emit,
// and words the result: in-process when bash would start no program for
// it (inproc.go), else in the shell.
func runForeground(ctx context.Context, env *workspace.Env, timing killTiming, command string, timeoutMS int, emit func(string)) (tool.Result, error) {
	if res, ok := runInProcess(ctx, env, command, emit); ok {
		return res, nil
	}
	return runInShell(ctx, env, timing, command, timeoutMS, emit)
}

// runInShell runs a command with the workspace's shell through proc.
func runInShell(ctx context.Context, env *workspace.Env, timing killTiming, command string, timeoutMS int, emit func(string)) (tool.Result, error) {
	out := &foregroundOutput{emit: emit}
	out.redact = newRedaction(ctx, env, out.keep)
	spec := shellSpec(env, command, timing, out.write)
	spec.Timeout = time.Duration(timeoutMS) * time.Millisecond
	p, err := startShell(ctx, env, command, spec)
	if err != nil {
		return tool.Result{}, fmt.Errorf("run the command: %w", err)
	}
	res := p.Wait()
	out.flush()
	var note string
	switch {
	case res.Leftovers:
		note = "processes the command left running were stopped (use background: true for servers and watchers)"
	case errors.Is(res.Stopped, proc.ErrTimedOut):
		note = fmt.Sprintf("timed out after %dms (killed)", timeoutMS)
	case res.Stopped != nil:
		return tool.Result{}, ErrInterrupted
	}
	result := out.result(res.Exit.ShellCode(), note)
	result.Refused = refusalOf(res.Refusal)
	return result, nil
}

// refusalOf is what the sandbox refused, as the session reports it.
func refusalOf(r *proc.Refusal) *protocol.SandboxRefusal {
	if r == nil {
		return nil
	}
	return &protocol.SandboxRefusal{Path: r.Path, Shown: r.Shown, Denied: r.Denied, Network: r.Network}
}

// titleMax is the most characters a Plan's title shows of a command.
const titleMax = 80

// title is a command line as a Plan's title: its first non-blank line,
// control characters as spaces, cut to titleMax characters, with an
// ellipsis when anything was left out.
func title(command string) string {
	first, rest, _ := strings.Cut(strings.TrimSpace(command), "\n")
	first = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, first))
	cut := strings.TrimSpace(rest) != ""
	if r := []rune(first); len(r) > titleMax {
		first, cut = strings.TrimSpace(string(r[:titleMax-1])), true
	}
	if cut {
		return first + " …"
	}
	return first
}
