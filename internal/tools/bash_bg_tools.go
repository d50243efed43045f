package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shiro-neko/shiro/internal/llm"
)

const handleSchema = `{"type":"object","properties":{` +
	`"handle":{"type":"integer","minimum":1,"description":"The handle bash returned for a background command."}},` +
	`"required":["handle"],"additionalProperties":false}`

func decodeHandle(call Call) (int, error) {
	var in struct {
		Handle int `json:"handle"`
	}
	if err := Decode(call, &in); err != nil {
		return 0, err
	}
	if in.Handle < 1 {
		return 0, Failf("handle must be a positive integer, got %d", in.Handle)
	}
	return in.Handle, nil
}

type bashStatusTool struct{ bg *Background }

// BashStatus returns the bash_status tool over bg.
func BashStatus(bg *Background) Tool { return bashStatusTool{bg: bg} }

func (bashStatusTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: "bash_status",
		Description: "Show a background command's state (running, finished or stopped, with the exit code) " +
			"and the output it printed since the last bash_status for it.",
		Schema: json.RawMessage(handleSchema),
	}
}

func (bashStatusTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Guidance: "bash_status: read a background command's state and its output since the last poll.",
	}
}

func (t bashStatusTool) Run(_ context.Context, call Call) (string, error) {
	h, err := decodeHandle(call)
	if err != nil {
		return "", err
	}
	return t.bg.status(h)
}

type bashStopTool struct{ bg *Background }

// BashStop returns the bash_stop tool over bg.
func BashStop(bg *Background) Tool { return bashStopTool{bg: bg} }

func (bashStopTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "bash_stop",
		Description: "Stop a background command and every process it started, and wait until they are gone.",
		Schema:      json.RawMessage(handleSchema),
	}
}

func (bashStopTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Mutating: true,
		Guidance: "bash_stop: stop a background command and everything it started.",
	}
}

func (t bashStopTool) Run(ctx context.Context, call Call) (string, error) {
	h, err := decodeHandle(call)
	if err != nil {
		return "", err
	}
	j, err := t.bg.find(h)
	if errors.Is(err, ErrNoSuchHandle) {
		return "", Failf("no such handle: %d", h)
	}
	wasRunning := j != nil && j.running()
	job, err := t.bg.Stop(ctx, h)
	switch {
	case err != nil:
		return "", err
	case !wasRunning || !job.Stopped:
		return fmt.Sprintf("handle %d had already %s: %s", h, job.Status(), job.Command), nil
	}
	return fmt.Sprintf("killed %d: %s", h, job.Command), nil
}
