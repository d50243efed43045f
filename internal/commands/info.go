package commands

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/shiro-neko/shiro/internal/agent"
)

// The commands in this file only show something.

// Thousands writes n with comma separators.
func Thousands(n int) string {
	s := fmt.Sprintf("%d", n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// runTools lists every registered tool with its set and effect, marking
// those not offered this turn.
func runTools(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	active := map[string]bool{}
	for _, t := range h.conv.ActiveTools() {
		active[t.Info().Name] = true
	}
	reg := h.Tools()
	names := reg.Names()
	var b strings.Builder
	fmt.Fprintf(&b, "%d offered this turn of %d registered\n", len(active), len(names))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, name := range names {
		t, _ := reg.Get(name)
		info := t.Info()
		set := string(info.Set)
		if set == "" {
			set = "session"
		}
		state := ""
		if !active[name] {
			state = "(not offered)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, set, info.Effect, state)
	}
	_ = tw.Flush()
	return text(strings.TrimRight(b.String(), "\n")), nil
}

func runTodos(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	tasks := h.Tasks()
	if len(tasks) == 0 {
		return text("the task list is empty"), nil
	}
	done, blocked := 0, 0
	for _, t := range tasks {
		switch t.Status {
		case "done":
			done++
		case "blocked":
			blocked++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tasks: %d/%d done", done, len(tasks))
	if blocked > 0 {
		fmt.Fprintf(&b, ", %d blocked", blocked)
	}
	for _, t := range tasks {
		b.WriteString("\n" + t.Mark() + " " + t.Content)
		if t.Note != "" {
			b.WriteString("  (" + t.Note + ")")
		}
	}
	return text(b.String()), nil
}

func runSkills(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	return text(strings.TrimRight(h.DescribeSkills(), "\n")), nil
}

func runPlugins(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	return text(strings.TrimRight(h.DescribePlugins(), "\n")), nil
}

func runPermissions(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	grants := h.Grants()
	if len(grants) == 0 {
		return text("nothing granted this session: answering `always` at an approval prompt grants what it names"), nil
	}
	return text("granted this session (never saved):\n" + strings.Join(sortedCopy(grants), "\n")), nil
}
