package app

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/store"
)

// sessionKeeper keeps the running session in the store: every change to
// the conversation as it happens (its Recorded hook), the task list,
// which belongs to the session, and taking a stored session up (-c, -r,
// /resume).
type sessionKeeper struct {
	agent.NoHooks
	a     *App
	store *store.Store
	// owned is set when the app opened the store and so closes it.
	owned bool
	// ctx is for the notebook's change callback, which has none; it is
	// the app's, without cancellation, so that the last task list of an
	// interrupted turn is still kept.
	ctx context.Context
	// last is the head of the last record, whose provider and model the
	// task list is kept under.
	mu   sync.Mutex
	last agent.Head
}

// start is how a session begins: as a new conversation, or taking up a
// stored one.
type start struct {
	id       string
	snapshot *store.Snapshot // nil for a new conversation
}

// history is the conversation to continue, if any.
func (st start) history() []llm.Message {
	if st.snapshot == nil {
		return nil
	}
	return st.snapshot.History
}

// openSessions readies the store (opening nothing on disk until a step is
// kept) and, for -c or -r, finds and loads the session to take up.
func (a *App) openSessions(ctx context.Context, opts Options) (start, error) {
	k := &sessionKeeper{a: a, store: opts.Store, ctx: context.WithoutCancel(ctx)}
	if k.store == nil {
		k.store = store.New(opts.Paths.SessionsDB(), store.Options{})
		k.owned = true
	}
	a.sessions = k
	var found store.Session
	var err error
	switch {
	case opts.Continue:
		found, err = k.store.Newest(ctx, a.Env.Root)
	case opts.Resume != "":
		found, err = k.store.Resolve(ctx, opts.Resume)
	default:
		return start{id: store.NewID()}, nil
	}
	if err != nil {
		k.close()
		return start{}, err
	}
	snap, err := k.store.Load(ctx, found.ID)
	if err != nil {
		k.close()
		return start{}, fmt.Errorf("resuming session %s: %w", store.Short(found.ID), err)
	}
	return start{id: found.ID, snapshot: &snap}, nil
}

// continuingNotice says what a resumed session takes up: the prompts and
// answers of the conversation it continues (tool results count with the
// answer that asked for them, as the transcript shows them), which after a
// compaction or an /undo are fewer than the session has stored.
func continuingNotice(id string, snap store.Snapshot) string {
	n := 0
	for _, m := range snap.History {
		if m.Role != llm.RoleTool {
			n++
		}
	}
	return fmt.Sprintf("continuing session %s: %d messages, %q", store.Short(id), n, snap.Session.Title)
}

// started finishes what Open began once the session runs: a resumed
// session gets its task list back and says what it took up; `shiro -r`
// without an id offers the directory's sessions to pick from.
func (k *sessionKeeper) started(ctx context.Context, st start, pick bool) error {
	if snap := st.snapshot; snap != nil {
		if err := k.a.Notebook.Replace("", snap.Tasks); err != nil {
			return fmt.Errorf("resuming session %s: its task list: %w", store.Short(st.id), err)
		}
		k.a.notice(continuingNotice(st.id, *snap))
	}
	if !pick {
		return nil
	}
	list, err := k.store.List(ctx, store.ListOptions{Cwd: k.a.Env.Root, Limit: 15})
	if err != nil {
		return err
	}
	picker := commands.Picker(list, "", false)
	if len(list) > 0 {
		picker.Output = "Pick a session to resume:\n" + picker.Output
	}
	k.a.publish(protocol.CommandResultEvent{Command: "resume", Output: picker.Output, Choices: picker.Choices})
	return nil
}

// head names the running session's row for a record; model, when set,
// is the model that made the record's call.
func (k *sessionKeeper) head(h agent.Head, model string) store.Head {
	return store.Head{ID: h.SessionID, Cwd: k.a.Env.Root, Provider: h.Provider, Model: cmp.Or(model, h.Model)}
}

// Recorded implements agent.TurnHooks.
func (k *sessionKeeper) Recorded(ctx context.Context, r agent.Record) error {
	k.mu.Lock()
	k.last = r.Conversation()
	k.mu.Unlock()
	switch r := r.(type) {
	case agent.Step:
		return k.store.Append(ctx, k.head(r.Head, r.CallModel), store.Step{Message: r.Message, Model: r.CallModel, Usage: r.Usage})
	case agent.Charged:
		return k.store.Charged(ctx, r.SessionID, r.Usage)
	case agent.Replaced:
		kind := store.MarkReplaced
		if len(r.History) == 0 {
			kind = store.MarkCleared
		}
		return k.store.Mark(ctx, k.head(r.Head, ""), store.Marker{Kind: kind, History: r.History})
	case agent.Compacted:
		c := r.Compaction
		m := store.Marker{Kind: store.MarkCompacted, History: c.History, Summary: c.Summary, Summarized: c.Summarized}
		return k.store.Compacted(ctx, k.head(r.Head, c.Model), m, c.Model, c.Usage)
	}
	return nil
}

// keepTasks is the notebook's change callback: the front end hears the
// new list, and it is kept with the running session.
func (k *sessionKeeper) keepTasks(ev protocol.TasksEvent) {
	k.a.publish(ev)
	s := k.a.owner
	if s == nil {
		return
	}
	k.mu.Lock()
	head := k.last
	k.mu.Unlock()
	head.SessionID = s.ID() // a /resume that recorded nothing yet moved it
	if err := k.store.SaveTasks(k.ctx, k.head(head, ""), ev.Tasks); err != nil {
		k.a.notice("the task list could not be saved with the session: " + err.Error())
	}
}

// Resume implements commands.Sessions: the running session continues the
// stored one, with its task list.
func (k *sessionKeeper) Resume(ctx context.Context, id string) (store.Session, error) {
	snap, err := k.store.Load(ctx, id)
	if err != nil {
		return store.Session{}, err
	}
	if err := k.a.owner.Resume(id, snap.History); err != nil {
		return store.Session{}, err
	}
	if err := k.a.Notebook.Replace("", snap.Tasks); err != nil {
		return snap.Session, fmt.Errorf("resumed, but its task list: %w", err)
	}
	return snap.Session, nil
}

// Store implements commands.Sessions.
func (k *sessionKeeper) Store() *store.Store { return k.store }

// close closes the store if the app opened it.
func (k *sessionKeeper) close() {
	if k != nil && k.owned {
		_ = k.store.Close()
	}
}

// Sessions is the host's side of the session commands.
func (h host) Sessions() commands.Sessions { return h.a.sessions }

// SessionStore is the store the session is kept in.
func (a *App) SessionStore() *store.Store { return a.sessions.store }

// The keeper is the session's recorder.
var _ agent.TurnHooks = (*sessionKeeper)(nil)
