package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/checkpoint"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// CheckpointHost is what /undo, /redo, /changes and /diff need of the
// host.
type CheckpointHost interface {
	// Checkpoints keeps the session's turns; nil when checkpoints are off.
	Checkpoints() *checkpoint.Keeper
}

func checkpointCommands() []command {
	return []command{
		{name: "undo", args: "[files | conversation] [N]", summary: "undo the last N turns (default 1): their file changes and the conversation, or one of the two", run: runUndo},
		{name: "redo", args: "[files | conversation] [N]", summary: "re-apply the turns /undo took back", run: runRedo},
		{name: "changes", args: "[--session]", summary: "files the last turn (or the whole session) added, modified, deleted", immediate: true, run: runChanges},
		{name: "diff", args: "[review [K]] [--session]", summary: "unified diff of the last turn (review: hunk by hunk)", immediate: true, run: runDiff},
	}
}

// errNoCheckpoints answers the checkpoint commands in a run that keeps none.
var errNoCheckpoints = errors.New("checkpoints are off in this run (see docs/checkpoints.md)")

func keeperOf(h env) (*checkpoint.Keeper, error) {
	k := h.Checkpoints()
	if k == nil {
		return nil, errNoCheckpoints
	}
	return k, nil
}

// parseStep reads `[files | conversation] [N]`.
func parseStep(args, verb string) (checkpoint.Request, error) {
	r := checkpoint.Request{N: 1, Files: true, Conversation: true}
	usage := fmt.Errorf("usage: /%s [files | conversation] [N]", verb)
	for _, f := range strings.Fields(args) {
		switch f {
		case "files":
			r.Conversation = false
		case "conversation":
			r.Files = false
		default:
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return r, usage
			}
			r.N = n
		}
	}
	if !r.Files && !r.Conversation {
		return r, usage
	}
	return r, nil
}

func runUndo(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	return runStep(ctx, h, args, true)
}

func runRedo(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	return runStep(ctx, h, args, false)
}

func runStep(ctx context.Context, h env, args string, undo bool) (agent.CommandOutcome, error) {
	verb, done := "redo", "redid"
	if undo {
		verb, done = "undo", "undid"
	}
	k, err := keeperOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	r, err := parseStep(args, verb)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	step := k.Redo
	if undo {
		step = k.Undo
	}
	conv := &draft{history: h.conv.History()}
	outcomes, err := step(ctx, h.conv.ID(), conv, r)
	if errors.Is(err, checkpoint.ErrNothing) {
		return text(fmt.Sprintf("nothing to %s in this session", verb)), nil
	}
	var b strings.Builder
	for _, o := range outcomes {
		describeOutcome(&b, o, done, undo)
	}
	out := agent.CommandOutcome{Output: strings.TrimRight(b.String(), "\n")}
	if conv.changed {
		out.Change = agent.Replace{History: conv.history}
	}
	if err != nil {
		return out, err
	}
	if undo {
		out.Choices = []protocol.Choice{{Label: "redo", Line: strings.TrimSpace("/redo " + args)}}
	}
	return out, nil
}

// describeOutcome says what an undo or redo did to one turn.
func describeOutcome(b *strings.Builder, o checkpoint.Outcome, done string, undo bool) {
	fmt.Fprintf(b, "%s turn %q:\n", done, o.Turn.Text)
	if len(o.Restored.Files) > 0 {
		fmt.Fprintf(b, "  files (%d):\n", len(o.Restored.Files))
		for _, c := range o.Restored.Files {
			fmt.Fprintf(b, "    %s %s\n", kindWord(c.Kind), c.Path)
		}
	} else if o.Turn.Before != "" && len(o.Restored.Refused)+len(o.Turn.Skipped)+len(o.Turn.SkippedAfter) == 0 {
		b.WriteString("  files: already as they were\n")
	}
	for _, r := range o.Restored.Refused {
		fmt.Fprintf(b, "  left alone: %s\n", r)
	}
	if o.Restored.Note != "" {
		fmt.Fprintf(b, "  %s\n", o.Restored.Note)
	}
	// Files the turn changed past the checkpoint's caps: named one by one,
	// never folded into "undid".
	lost, kept := o.Turn.Skipped, o.Turn.SkippedAfter
	if !undo {
		lost, kept = kept, nil
	}
	for _, s := range lost {
		fmt.Fprintf(b, "  not in the checkpoint, so not brought back: %s\n", s)
	}
	for _, s := range kept {
		fmt.Fprintf(b, "  not in the checkpoint, so left as the turn made it: %s\n", s)
	}
	if undo {
		if o.Turn.Uncovered {
			b.WriteString("  commands in this turn ran without the sandbox: what they wrote outside the workspace is not undone\n")
		}
	}
	switch {
	case o.Convo && undo:
		fmt.Fprintf(b, "  conversation: back to before the turn (%d messages)\n", o.Turn.HistoryLen)
	case o.Convo:
		b.WriteString("  conversation: the turn is back\n")
	case o.ConvoProblem != "":
		fmt.Fprintf(b, "  conversation: not changed: %s\n", o.ConvoProblem)
	}
}

// kindWord is what a restore did to a file, in a word.
func kindWord(k checkpoint.Kind) string {
	switch k {
	case checkpoint.Added:
		return "put back"
	case checkpoint.Deleted:
		return "removed "
	}
	return "restored"
}

// lastChanges finds the trees to compare: those of the newest turn whose
// file changes are in place, or, for the whole session, from before its
// first such turn to after its last.
func lastChanges(h env, session bool) (k *checkpoint.Keeper, from, to, label string, err error) {
	k, err = keeperOf(h)
	if err != nil {
		return nil, "", "", "", err
	}
	turns, err := k.Turns(h.conv.ID())
	if err != nil {
		return nil, "", "", "", err
	}
	var kept []checkpoint.Turn
	for _, t := range turns {
		if t.Files == checkpoint.Kept {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return nil, "", "", "", errors.New("no turn of this session has changed files (or their changes were undone)")
	}
	last := kept[len(kept)-1]
	if session {
		turns := "turns"
		if len(kept) == 1 {
			turns = "turn"
		}
		return k, kept[0].Before, last.After, fmt.Sprintf("this session (%d %s with changes)", len(kept), turns), nil
	}
	return k, last.Before, last.After, fmt.Sprintf("turn %q", last.Text), nil
}

func runChanges(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	if args != "" && args != "--session" {
		return agent.CommandOutcome{}, errors.New("usage: /changes [--session]")
	}
	k, from, to, label, err := lastChanges(h, args == "--session")
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	changes, err := k.Store().Changes(ctx, from, to)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if len(changes) == 0 {
		return text("no file differs after " + label), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "changed by %s:\n", label)
	for _, c := range changes {
		fmt.Fprintf(&b, "  %-8s %s\n", c.Kind, c.Path)
	}
	return agent.CommandOutcome{Output: strings.TrimRight(b.String(), "\n"),
		Choices: []protocol.Choice{{Label: "show the diff", Line: strings.TrimSpace("/diff " + args)}}}, nil
}

func runDiff(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	session, review, hunk := false, false, 1
	for _, f := range strings.Fields(args) {
		switch {
		case f == "--session":
			session = true
		case f == "review":
			review = true
		case review:
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return agent.CommandOutcome{}, errors.New("usage: /diff [review [K]] [--session]")
			}
			hunk = n
		default:
			return agent.CommandOutcome{}, errors.New("usage: /diff [review [K]] [--session]")
		}
	}
	k, from, to, label, err := lastChanges(h, session)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	changes, err := k.Store().Changes(ctx, from, to)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if !review {
		d, err := k.Store().Diff(ctx, changes)
		if err != nil {
			return agent.CommandOutcome{}, err
		}
		if d == "" {
			return text("no file differs after " + label), nil
		}
		return text(strings.TrimRight(d, "\n")), nil
	}
	hunks, err := k.Store().Hunks(ctx, changes)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if len(hunks) == 0 {
		return text("no file differs after " + label), nil
	}
	if hunk > len(hunks) {
		return agent.CommandOutcome{}, fmt.Errorf("there are %d hunks", len(hunks))
	}
	suffix := ""
	if session {
		suffix = " --session"
	}
	out := agent.CommandOutcome{Output: fmt.Sprintf("hunk %d of %d, %s:\n%s", hunk, len(hunks), hunks[hunk-1].Path, strings.TrimRight(hunks[hunk-1].Text, "\n"))}
	if hunk < len(hunks) {
		out.Choices = append(out.Choices, protocol.Choice{Label: "next hunk", Line: fmt.Sprintf("/diff review %d%s", hunk+1, suffix)})
	}
	if hunk > 1 {
		out.Choices = append(out.Choices, protocol.Choice{Label: "previous hunk", Line: fmt.Sprintf("/diff review %d%s", hunk-1, suffix)})
	}
	return out, nil
}
