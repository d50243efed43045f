package bash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Checks returns run_checks working in env.
func Checks(env *workspace.Env) []tool.Tool {
	return []tool.Tool{checksTool(env, defaultKillTiming())}
}

// Limits of run_checks.
const (
	checksMinTimeoutMS     = 5_000
	checksMaxTimeoutMS     = 600_000
	checksDefaultTimeoutMS = 120_000
	failureLines           = 40  // output lines shown of a failed check
	failureLineCut         = 300 // characters kept of each
)

type checksInput struct {
	Target  string `json:"target,omitempty" jsonschema:"only commands containing this"`
	Timeout *int   `json:"timeout,omitempty" jsonschema:"ms each, default 120000"`

	// selection is what the call runs, found once: by Plan, for the gate,
	// so that what the gate judged is what runs even if a file changes
	// while the person decides.
	selection selection
}

// selection is the checks one call runs, or why there are none.
type selection struct {
	once   sync.Once
	checks []check
	err    error
}

// selected finds the checks of the call once, and returns them ever after.
func (in *checksInput) selected(env *workspace.Env) ([]check, error) {
	in.selection.once.Do(func() {
		if env == nil {
			in.selection.err = errors.New("no workspace is set for run_checks")
			return
		}
		in.selection.checks, in.selection.err = selectChecks(discoverChecks(env), in.Target)
	})
	return in.selection.checks, in.selection.err
}

// checksTool finds the project's test, lint and build commands and runs
// them; timing is a parameter so that tests can stop checks sooner.
func checksTool(env *workspace.Env, timing killTiming) tool.Tool {
	return tool.New(tool.Def[checksInput]{
		Info: tool.Info{
			Name:        "run_checks",
			Description: "Run the project's tests, lint and build, as found in AGENTS.md, package.json, go.mod, Cargo.toml or pytest config.",
			Guidance:    "run_checks: verify a change with the project's own tests and linters.",
			Section:     "# Verify after every change\nRun run_checks (or the project's own test command) after changing code, and read the result before saying you are done.",
			Set:         tool.SetExtra,
			Effect:      tool.Runs,
			Kind:        protocol.KindExecute,
			Subject:     tool.CommandSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "timeout", checksMinTimeoutMS, checksMaxTimeoutMS) },
		Plan: func(in *checksInput) tool.Plan {
			found, err := in.selected(env)
			if err != nil {
				return tool.Plan{Title: title(in.Target)}
			}
			commands := make([]string, len(found))
			for i, c := range found {
				commands[i] = c.command
			}
			return tool.Plan{Subjects: commands, Commands: commands, Title: title(strings.Join(commands, "; "))}
		},
		Run: func(ctx context.Context, rt tool.Runtime, in *checksInput) (tool.Result, error) {
			found, err := in.selected(env)
			if err != nil {
				return tool.Result{}, err
			}
			timeout := time.Duration(tool.Or(in.Timeout, checksDefaultTimeoutMS)) * time.Millisecond
			results := make([]checkResult, 0, len(found))
			for _, c := range found {
				rt.Emit("$ " + c.command + "\n")
				r, err := runCheck(ctx, env, timing, c, timeout, rt.Emit)
				if err != nil {
					return tool.Result{}, err
				}
				results = append(results, r)
			}
			return tool.Text(tool.Cap(report(results))), nil
		},
	})
}

// selectChecks keeps the checks whose command or source contains target.
func selectChecks(found []check, target string) ([]check, error) {
	if len(found) == 0 {
		return nil, tool.Failf("No checks found: add test/lint/build commands in backticks to AGENTS.md, " +
			"a test or lint script to package.json, or use go.mod, Cargo.toml or a pytest config.")
	}
	target = strings.ToLower(strings.TrimSpace(target))
	if target == "" {
		return found, nil
	}
	var out []check
	var names []string
	for _, c := range found {
		names = append(names, c.command)
		if strings.Contains(strings.ToLower(c.command), target) || strings.Contains(strings.ToLower(c.source), target) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, tool.Failf("No check matches %q; the checks found are: %s.", target, strings.Join(names, "; "))
	}
	return out, nil
}

// checkResult is how one check went.
type checkResult struct {
	check
	passed bool
	status string // "exit 1", "timed out after 5000ms (killed)", ...
	head   []string
	more   int // output lines not kept
}

// runCheck runs one check as bash runs a command (the same shell, argv,
// environment and launcher), with stderr merged into stdout as the check
// wrote them, and stops the whole group on timeout or interruption. Like
// bash commands, a check leads a session of its own, so a tool that
// prompts on /dev/tty fails at once instead of stopping until the timeout,
// and it dies with shiro.
func runCheck(ctx context.Context, env *workspace.Env, timing killTiming, c check, timeout time.Duration, emit func(string)) (checkResult, error) {
	res := checkResult{check: c}
	out := &headLines{max: failureLines}
	// The redaction delivers one chunk at a time: no other lock is needed.
	var carry utf8Carry
	redact := newRedaction(ctx, env, func(_ streamKind, p []byte) {
		out.write(p)
		emit(carry.complete(p))
	})
	r, err := proc.Run(ctx, proc.Spec{
		Argv:          shellArgv(env, c.command),
		Dir:           env.Root,
		Env:           env.CommandEnviron(),
		Stdout:        proc.Stream(func(p []byte) { redact.write(stdoutStream, p) }),
		Stderr:        proc.SameAsStdout{},
		Timeout:       timeout,
		Grace:         timing.grace,
		Drain:         timing.drain,
		NewSession:    true,
		DieWithParent: true,
		// Without process groups (Windows) the shell alone is stopped.
		AllowWithoutGroups: true,
		Launcher:           launcherOf(env),
	})
	if err != nil {
		return res, fmt.Errorf("run %s: %w", c.command, err)
	}
	redact.flush(stdoutStream)
	emit(carry.flush())
	switch {
	case errors.Is(r.Stopped, proc.ErrTimedOut):
		res.status = fmt.Sprintf("timed out after %dms (killed)", timeout.Milliseconds())
	case r.Stopped != nil:
		return res, ErrInterrupted
	default:
		res.passed = r.Exit.Success()
		res.status = r.Exit.String()
	}
	res.head, res.more = out.lines()
	return res, nil
}
