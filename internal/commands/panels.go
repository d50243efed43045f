package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/diagnostics"
	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/prose"
)

// runContext shows what the model is told besides the conversation: the
// instruction and tracker files (with imports, and what was skipped), the
// skill folders it may read, and the prompt's bytes by part.
func runContext(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	r := h.Context()
	var b strings.Builder
	if len(r.Files) == 0 {
		b.WriteString("instruction files: none (AGENTS.md, CLAUDE.md, CLAUDE.local.md, .shiro.md, TODO.md and ROADMAP.md are read from the git root down)\n")
	} else {
		b.WriteString("instruction and tracker files:\n")
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, f := range r.Files {
			kind := "instructions"
			if f.Tracker {
				kind = "tracker"
			}
			size := picture.Size(f.Bytes)
			switch {
			case f.Skipped != "":
				size = "skipped: " + f.Skipped
			case f.Cut:
				size += " (cut)"
			}
			if f.ImportedBy != "" {
				kind = "imported by " + f.ImportedBy
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Label, kind, size)
		}
		_ = tw.Flush()
	}
	if len(r.ReadOnly) > 0 {
		b.WriteString("skill folders readable outside the workspace (read-only):\n")
		for _, d := range r.ReadOnly {
			b.WriteString("  " + d + "\n")
		}
	}
	total := r.StableBytes + r.VolatileBytes
	fmt.Fprintf(&b, "system prompt: %s, about %s tokens\n", picture.Size(total), approxTokens(total))
	writeParts(&b, "stable (cached)", r.StableBytes, r.Stable)
	writeParts(&b, "volatile (memory, task list)", r.VolatileBytes, r.Volatile)
	return text(strings.TrimRight(b.String(), "\n")), nil
}

func writeParts(b *strings.Builder, name string, whole int, parts []PromptPart) {
	fmt.Fprintf(b, "  %s: %s\n", name, picture.Size(whole))
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	for _, p := range parts {
		if p.Bytes > 0 {
			fmt.Fprintf(tw, "    %s\t%s\n", p.Name, picture.Size(p.Bytes))
		}
	}
	_ = tw.Flush()
}

// approxTokens is the usual four bytes a token, as a rough guide.
func approxTokens(bytes int) string { return Thousands((bytes + 3) / 4) }

// runNotes lists the project memory, newest first, with how often each
// entry was recalled.
func runNotes(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	n := h.Notes()
	if n == nil {
		return text("project memory is off (--no-memory, or its file could not be read)"), nil
	}
	list := n.List()
	if len(list) == 0 {
		return text("the project memory is empty: the agent adds to it with remember"), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "project memory: %d %s, newest first\n", len(list), prose.Plural(len(list), "entry", "entries"))
	for _, e := range list {
		fmt.Fprintf(&b, "%s (%s) %s", e.Created.Format("2006-01-02"), e.Kind, oneLine(e.Text))
		if e.Hits > 0 {
			fmt.Fprintf(&b, " [recalled %dx]", e.Hits)
		}
		b.WriteString("\n")
	}
	return text(strings.TrimRight(b.String(), "\n")), nil
}

// compactSystem is what the model is told when it compacts the memory.
const compactSystem = "You compact a coding project's memory: short facts, decisions, gotchas and commands an agent learned. " +
	"Merge entries that say the same or related things, drop what is trivial or obsolete, keep every concrete detail " +
	"(paths, commands, versions). Answer with one entry per line, each `[kind] text` where kind is fact, decision, " +
	"gotcha or command, and nothing else."

// minCompact is how many unrecalled entries make a compaction worth a
// model call.
const minCompact = 2

// runMemory has the model merge the entries nobody has recalled into
// fewer ones; recalled entries are kept as they are. If the answer holds
// no entry, the memory is left alone.
func runMemory(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	n := h.Notes()
	if n == nil {
		return text("project memory is off (--no-memory, or its file could not be read)"), nil
	}
	if verb, rest, _ := strings.Cut(strings.TrimSpace(args), " "); verb == "forget" {
		return forgetNotes(n, rest)
	} else if verb != "" {
		return agent.CommandOutcome{}, fmt.Errorf("/memory takes no argument or `forget TEXT`, not %q", args)
	}
	var ids []string
	var lines []string
	for _, e := range n.List() {
		if e.Hits > 0 {
			continue
		}
		ids = append(ids, e.ID)
		lines = append(lines, fmt.Sprintf("[%s] %s", e.Kind, oneLine(e.Text)))
	}
	if len(ids) < minCompact {
		return text(fmt.Sprintf("memory left as is: %d %s never recalled, nothing to merge (recalled entries are always kept)",
			len(ids), prose.Plural(len(ids), "entry was", "entries were"))), nil
	}
	answer, err := h.Complete(ctx, compactSystem, "Compact these entries:\n"+strings.Join(lines, "\n"))
	if err != nil {
		return agent.CommandOutcome{}, fmt.Errorf("compacting the memory: %w (it was left as is)", err)
	}
	merged := parseNotes(answer)
	if len(merged) == 0 {
		return text("memory left as is: the model's answer held no `[kind] text` line"), nil
	}
	removed, added, err := n.Compact(ids, merged)
	if err != nil {
		return agent.CommandOutcome{}, fmt.Errorf("compacting the memory: %w (it was left as is)", err)
	}
	return text(fmt.Sprintf("memory compacted: %d %s into %d", removed, prose.Plural(removed, "entry", "entries"), added)), nil
}

// forgetNotes removes the entries holding what: how a memory that proved
// wrong (one the learner added, say) is taken back.
func forgetNotes(n Notes, what string) (agent.CommandOutcome, error) {
	what = strings.TrimSpace(what)
	if what == "" {
		return agent.CommandOutcome{}, errors.New("/memory forget needs the text of the entries to forget: /memory forget TEXT (/notes lists them)")
	}
	gone, err := n.Forget(what)
	if err != nil {
		return agent.CommandOutcome{}, fmt.Errorf("forgetting: %w", err)
	}
	if len(gone) == 0 {
		return text(fmt.Sprintf("no memory entry holds %q; /notes lists them", what)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "forgot %d %s:", len(gone), prose.Plural(len(gone), "entry", "entries"))
	for _, e := range gone {
		fmt.Fprintf(&b, "\n(%s) %s", e.Kind, oneLine(e.Text))
	}
	return text(b.String()), nil
}

// parseNotes reads `[kind] text` lines; other lines are ignored.
func parseNotes(answer string) []Note {
	var out []Note
	for _, line := range strings.Split(answer, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•"))
		if !strings.HasPrefix(line, "[") {
			continue
		}
		kind, rest, ok := strings.Cut(line[1:], "]")
		kind = strings.ToLower(strings.TrimSpace(kind))
		rest = strings.TrimSpace(rest)
		if !ok || rest == "" || !slices.Contains([]string{"fact", "decision", "gotcha", "command"}, kind) {
			continue
		}
		out = append(out, Note{Kind: kind, Text: rest})
	}
	return out
}

// runDiagnostics runs, stops and shows the person's background check. Its
// output reaches the front end only: the model never reads it.
func runDiagnostics(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	d := h.Diagnostics()
	if d == nil {
		return text("diagnostics are not available in this session"), nil
	}
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch verb {
	case "", "status":
		return text(diagnosticsStatus(d.Status())), nil
	case "run":
		if err := d.Run(rest); err != nil {
			return agent.CommandOutcome{}, err
		}
		return text("diagnostics: running " + strings.TrimSpace(rest) + " (its output shows here when it ends; the model never sees it)"), nil
	case "start":
		if err := d.Rerun(); err != nil {
			return agent.CommandOutcome{}, err
		}
		return text("diagnostics: running " + d.Status().Command), nil
	case "stop":
		if !d.Stop() {
			return text("diagnostics: no check is running"), nil
		}
		return text("diagnostics: stopped"), nil
	case "on", "off":
		d.SetAuto(verb == "on")
		if verb == "on" {
			return text("diagnostics: the check re-runs after each turn that changed files"), nil
		}
		return text("diagnostics: the check runs only when you start it"), nil
	}
	return agent.CommandOutcome{}, errors.New("usage: /diagnostics [run CMD | start | stop | on | off | status]")
}

func diagnosticsStatus(st diagnostics.Status) string {
	if st.Command == "" {
		return "diagnostics: no check set; /diagnostics run CMD runs one in the background (only you see its output)"
	}
	state := "idle"
	if st.Running {
		state = "running"
	}
	auto := "off"
	if st.Auto {
		auto = "on (re-runs after each turn that changed files)"
	}
	lines := []string{"diagnostics: " + st.Command, "state: " + state, "auto: " + auto}
	if st.Last != nil {
		lines = append(lines, DiagnosticsReport(*st.Last))
	}
	return strings.Join(lines, "\n")
}

// DiagnosticsReport is how an ended check is shown: how it ended, then the
// tail of its output. The app publishes it when a check ends.
func DiagnosticsReport(r diagnostics.Report) string {
	out := strings.TrimRight(r.Output, "\n")
	s := r.Summary()
	if r.Cut {
		s += fmt.Sprintf(" (last %s of its output)", picture.Size(diagnostics.TailBytes))
	}
	if out == "" {
		return s + "; no output"
	}
	return s + "\n" + out
}

// oneLine flattens text for a list line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
