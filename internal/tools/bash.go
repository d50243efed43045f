package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Timeout bounds of a foreground command, in milliseconds.
const (
	BashMinTimeoutMS     = 1_000
	BashMaxTimeoutMS     = 600_000
	BashDefaultTimeoutMS = 120_000
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

// streamKind tells stdout from stderr.
type streamKind int

const (
	stdoutStream streamKind = iota
	stderrStream
)

// shellSpec is one command to start.
type shellSpec struct {
	shell, command, dir string
	env                 []string
	// onOutput receives every read from either pipe as it happens. It is
	// called from two goroutines and must not keep the slice.
	onOutput func(streamKind, []byte)
}

// runningShell is a started command: `<shell> -lc <command>` leading its own
// process group, with stdin from /dev/null and both pipes drained.
type runningShell interface {
	PID() int
	PGID() int
	// Exited is closed when the shell has exited.
	Exited() <-chan struct{}
	// Terminate stops the whole group: SIGTERM, grace, SIGKILL.
	Terminate(grace time.Duration)
	// Finish, once the shell has exited, stops what the command left running
	// in its group (reporting whether there was any) and waits for the
	// output to end.
	Finish(t killTiming) (leftovers bool)
	// ExitCode is valid after Finish; death by signal N is 128+N.
	ExitCode() int
}

type bashInput struct {
	Command    string `json:"command"`
	Timeout    *int   `json:"timeout"`
	Background bool   `json:"background"`
	Name       string `json:"name"`
}

// decodeBashInput is shared by Run and the gate's Subjects and Commands, so
// that the command a rule was checked against is the command that runs.
func decodeBashInput(raw json.RawMessage) (bashInput, error) {
	var in bashInput
	if err := Decode(Call{Input: raw}, &in); err != nil {
		return in, err
	}
	if in.Command == "" {
		return in, Failf("command is required")
	}
	return in, nil
}

func bashCommandField(raw json.RawMessage) []string {
	in, err := decodeBashInput(raw)
	if err != nil {
		return nil
	}
	return []string{in.Command}
}

type bashTool struct {
	env    *Env
	bg     *Background
	timing killTiming
}

// Bash returns the bash tool. env is the workspace used when a call carries
// none; bg runs background commands and may be nil where they are not
// offered (background: true is then refused).
func Bash(env *Env, bg *Background) Tool {
	return bashTool{env: env, bg: bg, timing: defaultKillTiming()}
}

func (t bashTool) Spec() llm.ToolSpec {
	shell := "bash"
	if t.env != nil && t.env.Shell != "" {
		shell = t.env.Shell
	}
	return llm.ToolSpec{
		Name: "bash",
		Description: "Run a shell command with `" + shell + " -lc` in the workspace root. Stdin is empty and there is " +
			"no terminal, so interactive programs and prompts fail at once. Output streams live; the result " +
			"gives `exit: N`, then stdout and stderr, keeping the head and tail of long output. Processes the " +
			"command leaves running are stopped when it exits: start servers and watchers with " +
			"background: true, then read them with bash_status and stop them with bash_stop.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"The command line to run."},` +
			`"timeout":{"type":"integer","minimum":1000,"maximum":600000,"description":"Milliseconds before the command and everything it started are killed (default 120000). Ignored with background."},` +
			`"background":{"type":"boolean","description":"Start the command and return at once with a handle."},` +
			`"name":{"type":"string","description":"A short label for a background command."}},` +
			`"required":["command"],"additionalProperties":false}`),
	}
}

func (t bashTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Mutating: true,
		Guidance: "bash: run shell commands (builds, tests, git); use background: true for servers and watchers.",
		Subjects: bashCommandField,
		Commands: bashCommandField,
	}
}

func (t bashTool) Run(ctx context.Context, call Call) (string, error) {
	in, err := decodeBashInput(call.Input)
	if err != nil {
		return "", err
	}
	env, err := CallEnv(call, t.env)
	if err != nil {
		return "", err
	}
	if in.Background {
		if t.bg == nil {
			return "", Failf("background commands are not available here; run the command without background")
		}
		return t.bg.startForTool(env, in.Command, in.Name)
	}
	timeout := BashDefaultTimeoutMS
	if in.Timeout != nil {
		timeout = *in.Timeout
		if timeout < BashMinTimeoutMS || timeout > BashMaxTimeoutMS {
			return "", Failf("timeout must be between %d and %d milliseconds, got %d", BashMinTimeoutMS, BashMaxTimeoutMS, timeout)
		}
	}
	return t.runForeground(ctx, env, in.Command, timeout, call.Emit)
}

func (t bashTool) runForeground(ctx context.Context, env *Env, command string, timeoutMS int, emit func(string)) (string, error) {
	out := &foregroundOutput{emit: emit}
	p, err := startShell(shellSpec{
		shell:    shellOf(env),
		command:  command,
		dir:      env.Root,
		env:      env.CommandEnviron(),
		onOutput: out.write,
	})
	if err != nil {
		return "", err
	}
	timer := time.NewTimer(time.Duration(timeoutMS) * time.Millisecond)
	defer timer.Stop()
	var note string
	interrupted := false
	select {
	case <-p.Exited():
	case <-timer.C:
		p.Terminate(t.timing.grace)
		note = fmt.Sprintf("timed out after %dms (killed)", timeoutMS)
	case <-ctx.Done():
		p.Terminate(t.timing.grace)
		interrupted = true
	}
	if p.Finish(t.timing) {
		note = "processes the command left running were stopped (use background: true for servers and watchers)"
	}
	out.flush()
	if interrupted {
		return "", ErrInterrupted
	}
	return out.result(p.ExitCode(), note), nil
}

func shellOf(env *Env) string {
	if env.Shell == "" {
		return "bash"
	}
	return env.Shell
}
