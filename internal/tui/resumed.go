package tui

import (
	"context"
	"fmt"
	"slices"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// showHistory draws a conversation the session took up from the store
// (`shiro -c`, `shiro -r ID`, /resume) as the transcript so far: each
// prompt, each answer with its thinking, and each tool call with the
// outcome the model read. Nothing in it is live, so no turn opens and no
// call is left running.
//
// A replaced conversation (/undo, /redo, /clear) is redrawn from scratch,
// so that a turn taken back no longer shows.
func (m *model) showHistory(e protocol.HistoryEvent) {
	tr := m.tr
	if e.Replaced {
		tr.clear()
		if len(e.Messages) == 0 {
			return
		}
	} else {
		tr.closeBlocks()
	}
	what := "resumed conversation"
	if e.Replaced {
		what = "conversation as it now stands"
	}
	m.note(noteInfo, fmt.Sprintf("%s · %d %s", what, len(e.Messages), prose.Plural(len(e.Messages), "message", "messages")))
	for _, msg := range e.Messages {
		switch msg.Role {
		case protocol.HistoryUser:
			tr.add(&userItem{text: msg.Text, attached: msg.Attached})
		case protocol.HistorySummary:
			m.note(noteNotice, "earlier messages were compacted into this summary:\n"+msg.Text)
		case protocol.HistoryAssistant:
			if msg.Reasoning != "" {
				tr.appendReasoning(msg.Reasoning)
			}
			if msg.Text != "" {
				tr.appendText(msg.Text)
			}
			for _, c := range msg.Calls {
				en, ti := tr.tool(c.ID, c.Name)
				ti.arg = c.Title
				ti.state, ti.output = toolOK, c.Output
				if c.IsError {
					ti.state = toolFailed
				}
				tr.touch(en)
			}
			tr.closeBlocks()
		}
	}
}

// PromptStore is a project's prompt history kept outside the UI (the
// session store), shared by every window on the project.
type PromptStore interface {
	// Load returns the prompts, oldest first.
	Load(ctx context.Context) ([]string, error)
	// Add records a sent prompt; a repeat of the newest is not added.
	Add(ctx context.Context, prompt string) error
}

// openHistory is the prompt history behind up and down: the shared store,
// or one in memory for this session when there is none.
func openHistory(ctx context.Context, opts Options) *history {
	store := opts.Prompts
	if store == nil {
		store = &sessionPrompts{}
	}
	h := &history{shared: store, ctx: ctx}
	entries, err := store.Load(ctx)
	if err != nil {
		h.broken = fmt.Errorf("prompt history: %w", err)
	}
	if err == nil && len(entries) == 0 && opts.HistoryPath != "" {
		entries = importHistoryFile(ctx, store, opts.HistoryPath)
	}
	h.entries = trimHistory(entries)
	h.pos = len(h.entries)
	return h
}

// importHistoryFile moves the prompts of the project's history file,
// where they were kept before the store, into an empty store, once; the
// file is left where it is. It returns what the store then holds.
func importHistoryFile(ctx context.Context, store PromptStore, path string) []string {
	old, err := readHistory(path)
	if err != nil || len(old) == 0 {
		return nil
	}
	for _, p := range old {
		if store.Add(ctx, p) != nil {
			break
		}
	}
	entries, _ := store.Load(ctx)
	return entries
}

// sessionPrompts keeps a session's prompts when no store was given.
type sessionPrompts struct{ entries []string }

func (p *sessionPrompts) Load(context.Context) ([]string, error) { return slices.Clone(p.entries), nil }

func (p *sessionPrompts) Add(_ context.Context, prompt string) error {
	p.entries = appendHistory(p.entries, prompt)
	return nil
}

// add records a sent prompt in the store and takes the store's
// list back, so prompts sent meanwhile from another window show too. A
// store that fails keeps the prompt in memory.
func (h *history) add(prompt string) error {
	defer h.resetBrowse()
	if err := h.shared.Add(h.ctx, prompt); err != nil {
		h.entries = appendHistory(h.entries, prompt)
		return fmt.Errorf("prompt history: %w", err)
	}
	entries, err := h.shared.Load(h.ctx)
	if err != nil {
		h.entries = appendHistory(h.entries, prompt)
		return fmt.Errorf("prompt history: %w", err)
	}
	h.entries = trimHistory(entries)
	return nil
}
