package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// runClear starts the conversation over.
func runClear(context.Context, env, string) (agent.CommandOutcome, error) {
	return agent.CommandOutcome{Output: "cleared: the conversation starts over (tokens used so far still count in /cost)",
		Change: agent.Replace{}}, nil
}

// runInit has the agent write AGENTS.md. When the project lacks the
// workflow tracker files it first offers to create them; shiro writes them
// itself (it never overwrites), then tells the agent.
func runInit(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	switch args {
	case "":
		if !h.NeedsScaffold() {
			return agent.CommandOutcome{Prompt: h.InitPrompt(false)}, nil
		}
		return agent.CommandOutcome{
			Output: "Also create the project workflow files? TODO.md (now, next, maintenance), ROADMAP.md and docs/README.md, " +
				"from short templates, at the root of the repository; files that exist are left alone. Then the agent writes AGENTS.md either way.",
			Choices: []protocol.Choice{
				{Label: "yes, create them", Line: "/init scaffold"},
				{Label: "no, only AGENTS.md", Line: "/init no-scaffold"},
			},
		}, nil
	case "no-scaffold":
		return agent.CommandOutcome{Prompt: h.InitPrompt(false)}, nil
	case "scaffold":
		written, kept, err := h.Scaffold()
		if err != nil {
			return agent.CommandOutcome{}, err
		}
		var lines []string
		for _, p := range written {
			lines = append(lines, "wrote "+p)
		}
		for _, p := range kept {
			lines = append(lines, "left alone "+p+" (it exists)")
		}
		return agent.CommandOutcome{Output: strings.Join(lines, "\n"), Prompt: h.InitPrompt(true)}, nil
	}
	return agent.CommandOutcome{}, fmt.Errorf("usage: /init [scaffold | no-scaffold]")
}

// stopTimeout bounds how long /bash stop waits for process groups to die.
const stopTimeout = 10 * time.Second

// ErrNoSuchJob is what a Jobs implementation returns for a handle it does
// not know.
var ErrNoSuchJob = errors.New("no such background command")

// runBash lists or stops background commands.
func runBash(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	jobs := h.Jobs()
	if jobs == nil {
		return text("background commands are not available in this session"), nil
	}
	fields := strings.Fields(args)
	if len(fields) == 0 || fields[0] == "list" {
		return text(jobList(jobs.List())), nil
	}
	if fields[0] != "stop" || len(fields) != 2 {
		return agent.CommandOutcome{}, errors.New("usage: /bash [list | stop ID | stop newest | stop all]")
	}
	handles, err := pickJobs(jobs.List(), fields[1])
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if len(handles) == 0 {
		return text("no background command is running"), nil
	}
	ctx, cancel := context.WithTimeout(ctx, stopTimeout)
	defer cancel()
	var lines []string
	var failed []string
	for _, id := range handles {
		job, err := jobs.Stop(ctx, id)
		switch {
		case errors.Is(err, ErrNoSuchJob):
			failed = append(failed, fmt.Sprintf("no background command %d (/bash lists them)", id))
		case err != nil:
			failed = append(failed, fmt.Sprintf("stopping %d: %v", id, err))
		default:
			lines = append(lines, fmt.Sprintf("%d: %s — %s", job.Handle, job.Name, job.Status))
		}
	}
	out := agent.CommandOutcome{Output: strings.Join(lines, "\n")}
	if len(failed) > 0 {
		return out, errors.New(strings.Join(failed, "; "))
	}
	return out, nil
}

// pickJobs reads the target of /bash stop: a handle, newest or all (the
// running ones).
func pickJobs(list []Job, which string) ([]int, error) {
	var running []int
	for _, j := range list {
		if j.Running {
			running = append(running, j.Handle)
		}
	}
	switch which {
	case "all":
		return running, nil
	case "newest":
		if len(running) == 0 {
			return nil, nil
		}
		newest := running[0]
		for _, h := range running {
			newest = max(newest, h)
		}
		return []int{newest}, nil
	}
	h, err := strconv.Atoi(which)
	if err != nil {
		return nil, fmt.Errorf("/bash stop takes a handle number, newest or all, not %q", which)
	}
	return []int{h}, nil
}

func jobList(jobs []Job) string {
	if len(jobs) == 0 {
		return "no background commands this session"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 1, ' ', 0)
	for _, j := range jobs {
		fmt.Fprintf(tw, "%d:\t%s — %s\n\t   %s\n", j.Handle, j.Name, j.Status, j.Command)
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}
