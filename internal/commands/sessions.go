package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/store"
)

// SessionHost is what the session commands (/sessions, /resume, /save,
// /search, /fork, /rename) need of the host.
type SessionHost interface {
	// Sessions is the session store and the way to take a stored session
	// up; nil when this run keeps no sessions.
	Sessions() Sessions
}

// Sessions is the session commands' side of the host.
type Sessions interface {
	// Store is where every step of every session is kept.
	Store() *store.Store
	// Resume continues the stored session id in the running one: its
	// history and its task list replace the current ones.
	Resume(ctx context.Context, id string) (store.Session, error)
}

// sessionsShown is how many sessions /sessions and the picker list.
const sessionsShown = 15

func sessionCommands() []command {
	return []command{
		{name: "sessions", args: "[all]", summary: "this directory's saved sessions (all: every directory's), to resume one", immediate: true, run: runSessions},
		{name: "resume", args: "[ID]", summary: "continue a saved session (no ID: pick one)", run: runResume},
		{name: "save", summary: "say where this session is saved (every step is saved as it completes)", immediate: true, run: runSave},
		{name: "search", args: "QUERY", summary: "find saved sessions by what was said in them", immediate: true, run: runSearch},
		{name: "fork", summary: "copy this conversation into a new saved session to take another way later", run: runFork},
		{name: "rename", args: "TITLE", summary: "give this session a title", immediate: true, run: runRename},
		{name: "compact", args: "[FOCUS]", summary: "have the model summarise the older conversation to free context (FOCUS: what to keep above all)", run: runCompact},
	}
}

// errNoSessions answers the session commands in a run that keeps none.
var errNoSessions = errors.New("this run keeps no sessions")

func sessionsOf(h env) (Sessions, error) {
	s := h.Sessions()
	if s == nil {
		return nil, errNoSessions
	}
	return s, nil
}

func runSessions(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	ss, err := sessionsOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	o := store.ListOptions{Cwd: h.conv.Config().Cwd, Limit: sessionsShown}
	switch args {
	case "":
	case "all":
		o.Cwd = ""
	default:
		return agent.CommandOutcome{}, errors.New("usage: /sessions [all]")
	}
	list, err := ss.Store().List(ctx, o)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	return Picker(list, h.conv.ID(), o.Cwd == ""), nil
}

// Picker lists sessions to resume: a table, and one choice per session
// that submits `/resume ID`. current is marked; withDirs adds each
// session's directory.
func Picker(list []store.Session, current string, withDirs bool) agent.CommandOutcome {
	if len(list) == 0 {
		return text("no saved sessions yet")
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	var choices []protocol.Choice
	for _, s := range list {
		mark := " "
		if s.ID == current {
			mark = "*"
		}
		line := fmt.Sprintf("%s %s\t%s\t%d msg\t%s", mark, store.Short(s.ID), s.Updated.Local().Format("2006-01-02 15:04"), s.Messages, s.Title)
		if withDirs {
			line += "\t" + s.Cwd
		}
		fmt.Fprintln(tw, line)
		if s.ID != current {
			choices = append(choices, protocol.Choice{
				Label:  fmt.Sprintf("%s  %s", store.Short(s.ID), s.Title),
				Detail: fmt.Sprintf("%s · %d messages", s.Updated.Local().Format("2006-01-02 15:04"), s.Messages),
				Line:   "/resume " + s.ID,
			})
		}
	}
	_ = tw.Flush()
	return agent.CommandOutcome{Output: strings.TrimRight(b.String(), "\n"), Choices: choices}
}

func runResume(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	ss, err := sessionsOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if args == "" {
		return runSessions(ctx, h, "")
	}
	target, err := ss.Store().Resolve(ctx, args)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if target.ID == h.conv.ID() {
		return text(fmt.Sprintf("already in session %s", store.Short(target.ID))), nil
	}
	resumed, err := ss.Resume(ctx, target.ID)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	return text(fmt.Sprintf("resumed %s: %d messages, %q", store.Short(resumed.ID), resumed.Messages, resumed.Title)), nil
}

func runSave(ctx context.Context, h env, _ string) (agent.CommandOutcome, error) {
	ss, err := sessionsOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	id := h.conv.ID()
	s, err := ss.Store().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && s.Messages == 0) {
		return text(fmt.Sprintf("nothing to save yet: session %s has no messages", store.Short(id))), nil
	}
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	return text(fmt.Sprintf("saved %s: %d messages, %q in %s\nresume it with: shiro -r %s",
		s.ID, s.Messages, s.Title, ss.Store().Path(), store.Short(s.ID))), nil
}

func runSearch(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	ss, err := sessionsOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if args == "" {
		return agent.CommandOutcome{}, errors.New("usage: /search QUERY")
	}
	hits, err := ss.Store().Search(ctx, args, store.SearchOptions{})
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if len(hits) == 0 {
		return text(fmt.Sprintf("no saved session mentions %q", args)), nil
	}
	here := h.conv.Config().Cwd
	var lines []string
	var choices []protocol.Choice
	for _, hit := range hits {
		s := hit.Session
		line := fmt.Sprintf("%s  %s  %s", store.Short(s.ID), s.Updated.Local().Format("2006-01-02 15:04"), s.Title)
		if s.Cwd != here {
			line += "  (" + s.Cwd + ")"
		}
		if hit.Seq != 0 {
			line += "\n    " + hit.Snippet
		}
		lines = append(lines, line)
		choices = append(choices, protocol.Choice{Label: store.Short(s.ID) + "  " + s.Title, Detail: hit.Snippet, Line: "/resume " + s.ID})
	}
	return agent.CommandOutcome{Output: strings.Join(lines, "\n"), Choices: choices}, nil
}

func runFork(ctx context.Context, h env, _ string) (agent.CommandOutcome, error) {
	ss, err := sessionsOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	history := agent.ValidHistory(h.conv.History())
	if len(history) == 0 {
		return agent.CommandOutcome{}, errors.New("nothing to fork yet: the conversation is empty")
	}
	from := h.conv.ID()
	title := store.Title(history[0].PlainText())
	if cur, err := ss.Store().Get(ctx, from); err == nil && cur.Title != "" {
		title = cur.Title
	}
	cfg := h.conv.Config()
	_, providerName := h.conv.Provider()
	fork := store.Head{ID: store.NewID(), Cwd: cfg.Cwd, Provider: providerName, Model: h.conv.Model(),
		Title: title + " (fork)", ForkedFrom: from}
	if err := ss.Store().Create(ctx, fork, history); err != nil {
		return agent.CommandOutcome{}, err
	}
	short := store.Short(fork.ID)
	return agent.CommandOutcome{
		Output:  fmt.Sprintf("forked %s (%d messages) — this session goes on; resume the fork with /resume %s", short, len(history), short),
		Choices: []protocol.Choice{{Label: "switch to the fork now", Line: "/resume " + fork.ID}},
	}, nil
}

func runRename(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	ss, err := sessionsOf(h)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	if strings.TrimSpace(args) == "" {
		return agent.CommandOutcome{}, errors.New("usage: /rename TITLE")
	}
	id := h.conv.ID()
	if err := ss.Store().Rename(ctx, id, args); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return agent.CommandOutcome{}, errors.New("nothing is saved yet: send a message first, then name the session")
		}
		return agent.CommandOutcome{}, err
	}
	return text(fmt.Sprintf("session %s is now %q", store.Short(id), strings.TrimSpace(args))), nil
}

// runCompact has the model summarise the older history. Its result
// carries no text: the session's compacted event already reports what was
// replaced, to every front end, and a second report printed the news twice.
func runCompact(_ context.Context, _ env, focus string) (agent.CommandOutcome, error) {
	return agent.CommandOutcome{Change: agent.Compact{Focus: focus}}, nil
}
