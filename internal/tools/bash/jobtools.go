package bash

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// handleInput names a background command.
type handleInput struct {
	Handle int `json:"handle" jsonschema:"The handle bash returned for a background command."`
}

func shapeHandle(s *jsonschema.Schema) { tool.Min(s, "handle", 1) }

// handlePlan titles a call about a background command with its handle and,
// while the command is remembered, its name.
func handlePlan(bg *Background) func(*handleInput) tool.Plan {
	return func(in *handleInput) tool.Plan {
		t := strconv.Itoa(in.Handle)
		if j, err := bg.find(in.Handle); err == nil {
			t += " " + title(j.name)
		}
		return tool.Plan{Title: t}
	}
}

// noSuchHandle is the model's message for a handle that names nothing.
func noSuchHandle(h int) error { return tool.Failf("no such handle: %d", h) }

func statusTool(bg *Background) tool.Tool {
	return tool.New(tool.Def[handleInput]{
		Info: tool.Info{
			Name: "bash_status",
			Description: "Show a background command's state (running, finished or stopped, with the exit code) " +
				"and the output it printed since the last bash_status for it.",
			Guidance: "bash_status: read a background command's state and its output since the last poll.",
			Set:      tool.SetCore,
			Effect:   tool.Reads,
			Kind:     protocol.KindRead,
			Subject:  tool.NoSubject,
		},
		Shape: shapeHandle,
		Plan:  handlePlan(bg),
		Run: func(_ context.Context, _ tool.Runtime, in *handleInput) (tool.Result, error) {
			out, err := bg.status(in.Handle)
			if errors.Is(err, ErrNoSuchHandle) {
				return tool.Result{}, noSuchHandle(in.Handle)
			}
			return tool.Text(out), err
		},
	})
}

func stopTool(bg *Background) tool.Tool {
	return tool.New(tool.Def[handleInput]{
		Info: tool.Info{
			Name:        "bash_stop",
			Description: "Stop a background command and every process it started, and wait until they are gone.",
			Guidance:    "bash_stop: stop a background command and everything it started.",
			Set:         tool.SetCore,
			Effect:      tool.Runs,
			Kind:        protocol.KindExecute,
			Subject:     tool.NoSubject,
		},
		Shape: shapeHandle,
		Plan:  handlePlan(bg),
		Run: func(ctx context.Context, _ tool.Runtime, in *handleInput) (tool.Result, error) {
			h := in.Handle
			j, err := bg.find(h)
			if err != nil {
				return tool.Result{}, noSuchHandle(h)
			}
			wasRunning := j.running()
			job, err := bg.Stop(ctx, h)
			switch {
			case err != nil:
				return tool.Result{}, err
			case !wasRunning || !job.Stopped:
				return tool.Text(fmt.Sprintf("handle %d had already %s: %s", h, job.Status(), job.Command)), nil
			}
			return tool.Text(fmt.Sprintf("killed %d: %s", h, job.Command)), nil
		},
	})
}

// status words bash_status: the job's state and the output since the last
// poll, which it then marks as read.
func (b *Background) status(handle int) (string, error) {
	j, err := b.find(handle)
	if err != nil {
		return "", err
	}
	info := j.info()
	text, dropped := j.since()

	var s strings.Builder
	fmt.Fprintf(&s, "handle %d: %s\nstatus: %s\ncommand: %s\n", info.Handle, info.Name, info.Status(), info.Command)
	if n := j.redact.noticeNote(); n != "" {
		s.WriteString(n + "\n")
	}
	s.WriteString("new output:")
	if text == "" && dropped == 0 {
		s.WriteString(" (none)")
		return s.String(), nil
	}
	if dropped > 0 {
		fmt.Fprintf(&s, "\n[... %d earlier bytes dropped ...]", dropped)
	}
	s.WriteString("\n")
	budget := tool.ResultCap - s.Len() - 64
	s.WriteString(strings.TrimSuffix(clipMiddle(text, budget), "\n"))
	return tool.Cap(s.String()), nil
}
