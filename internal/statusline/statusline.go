// Package statusline runs the person's status line command, as Claude
// Code's `statusLine` setting does: the session's state goes to the
// command as JSON on stdin, and the first line it prints is what the
// terminal UI shows in place of its own status line. The command runs
// through the session's Launcher (the sandbox) with a time limit; which
// command may run at all (a project's needs approving) is app's decision.
package statusline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/proc"
)

// DefaultTimeout is how long one run may take unless the config says.
const DefaultTimeout = 2 * time.Second

// Input is what the command reads on stdin. The first fields are Claude
// Code's, so scripts written for it work unchanged; Context and Agent are
// shiro's.
type Input struct {
	HookEventName  string    `json:"hook_event_name"`
	SessionID      string    `json:"session_id"`
	TranscriptPath string    `json:"transcript_path"`
	Cwd            string    `json:"cwd"`
	Model          Model     `json:"model"`
	Workspace      Workspace `json:"workspace"`
	Version        string    `json:"version"`
	Cost           Cost      `json:"cost"`
	// PermissionMode is how calls are decided: "default", or
	// "bypassPermissions" under --yolo.
	PermissionMode string  `json:"permission_mode"`
	Context        Context `json:"context"`
	// Agent is the agent variant (default, quick, deep, plan, review).
	Agent string `json:"agent"`
}

// Model names the model the next turn uses.
type Model struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
}

// Workspace is where the session works.
type Workspace struct {
	CurrentDir string `json:"current_dir"`
	ProjectDir string `json:"project_dir"`
}

// Cost is what the session spent so far and the lines its edits changed.
type Cost struct {
	TotalCostUSD      float64 `json:"total_cost_usd"`
	TotalDurationMs   int64   `json:"total_duration_ms"`
	TotalLinesAdded   int     `json:"total_lines_added"`
	TotalLinesRemoved int     `json:"total_lines_removed"`
}

// Context is how full the model's context window is: the conversation's
// estimated tokens against the window.
type Context struct {
	UsedTokens   int `json:"used_tokens"`
	WindowTokens int `json:"window_tokens"`
	UsedPercent  int `json:"used_percent"`
}

// Runner runs one status line command. Run may be called from any
// goroutine; the front end keeps at most one run in flight.
type Runner struct {
	// Command is given to /bin/sh -c in Dir, with Env as its whole
	// environment (the session's scrubbed one) and through Launcher.
	Command  string
	Dir      string
	Env      []string
	Launcher proc.Launcher
	// Timeout bounds a run; zero is DefaultTimeout.
	Timeout time.Duration
}

// maxOutput is what is kept of the command's output: only its first line
// is shown, so a chatty script is cut off rather than buffered.
const maxOutput = 8 << 10

// ErrTimedOut is wrapped by Run's error when the command took too long.
var ErrTimedOut = errors.New("timed out")

// Run feeds in to the command and returns the first line it printed,
// cleaned for the terminal: colours are kept, every other control
// sequence (cursor moves, titles, a bell) is dropped. An empty line is
// not an error; a failure or a timeout is, saying why.
func (r *Runner) Run(ctx context.Context, in Input) (string, error) {
	stdin, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("status line input: %w", err)
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var out, errOut capped
	res, err := proc.Run(ctx, proc.Spec{
		Argv: []string{"/bin/sh", "-c", r.Command}, Dir: r.Dir, Env: r.Env, Stdin: stdin,
		Stdout: proc.Stream(out.write), Stderr: proc.Stream(errOut.write),
		Timeout: timeout, NewSession: true, Drain: 100 * time.Millisecond, Launcher: r.Launcher,
	})
	if err != nil {
		return "", fmt.Errorf("status line command: %w", err)
	}
	switch {
	case errors.Is(res.Stopped, proc.ErrTimedOut):
		return "", fmt.Errorf("status line command %w after %s", ErrTimedOut, timeout)
	case res.Stopped != nil:
		return "", fmt.Errorf("status line command stopped: %w", res.Stopped)
	case res.Exit.Signal != 0:
		return "", fmt.Errorf("status line command killed by %s%s", proc.SignalName(res.Exit.Signal), tail(errOut.bytes()))
	case res.Exit.Code != 0:
		return "", fmt.Errorf("status line command exited with status %d%s", res.Exit.Code, tail(errOut.bytes()))
	}
	return FirstLine(out.bytes()), nil
}

// FirstLine is the first line of output as the status line shows it:
// SGR colour sequences and printable text, nothing else that could move
// the cursor or change the terminal.
func FirstLine(out []byte) string {
	line, _, _ := bytes.Cut(out, []byte("\n"))
	var b strings.Builder
	var state byte
	for len(line) > 0 {
		seq, width, n, next := ansi.DecodeSequence(line, state, nil)
		state = next
		switch {
		case width > 0:
			b.Write(seq)
		case ansi.HasCsiPrefix(seq) && bytes.HasSuffix(seq, []byte("m")):
			b.Write(seq)
		case len(seq) == 1 && seq[0] == '\t':
			b.WriteByte(' ')
		}
		line = line[n:]
	}
	// A colour left on would run into the rest of the frame.
	if strings.Contains(b.String(), "\x1b[") {
		b.WriteString("\x1b[m")
	}
	return b.String()
}

// tail is the last line of stderr, for an error message.
func tail(stderr []byte) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	last := strings.TrimSpace(ansi.Strip(lines[len(lines)-1]))
	if last == "" {
		return ""
	}
	return ": " + ansi.Truncate(last, 120, "…")
}

// capped keeps the first maxOutput bytes a stream writes; proc calls
// write from a goroutine of the stream's own.
type capped struct {
	mu  sync.Mutex
	buf []byte
}

func (c *capped) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxOutput - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(len(p), room)]...)
	}
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf)
}
