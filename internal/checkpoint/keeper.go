package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Conversation is the session whose history an undo shortens and a redo
// lengthens again (the agent's session).
type Conversation interface {
	History() []llm.Message
	SetHistory(h []llm.Message) error
}

// Keeper is the checkpoints of one workspace's sessions: it takes the
// snapshots at a turn's edges, journals the turns, and undoes and redoes
// them.
type Keeper struct {
	store *Store
	dir   string // the journals

	mu sync.Mutex
	// before is the snapshot taken before the running turn's first
	// change, per session; failed keeps why it could not be taken.
	before map[string]Snapshot
	failed map[string]error
}

// NewKeeper keeps the journals of sessions in dir, over store.
func NewKeeper(store *Store, dir string) *Keeper {
	return &Keeper{store: store, dir: dir, before: map[string]Snapshot{}, failed: map[string]error{}}
}

// Store is the snapshot store the keeper uses.
func (k *Keeper) Store() *Store { return k.store }

// BeforeChange takes the snapshot of the workspace before the running
// turn of session changes anything. Only the first call of a turn takes
// one.
func (k *Keeper) BeforeChange(ctx context.Context, session string) error {
	k.mu.Lock()
	_, done := k.before[session]
	failed := k.failed[session]
	k.mu.Unlock()
	if done || failed != nil {
		return nil
	}
	snap, err := k.store.Snapshot(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		k.failed[session] = err
		return err
	}
	k.before[session] = snap
	return nil
}

// TurnInfo describes a turn that ended.
type TurnInfo struct {
	Seq        int
	Text       string
	HistoryLen int
	// Opening is the turn's first message, nil when unknown.
	Opening *llm.Message
	// Uncovered: the turn ran commands that nothing confined to the
	// workspace.
	Uncovered bool
}

// EndTurn takes the snapshot after a turn (when it changed anything) and
// journals the turn. It returns the journaled turn.
func (k *Keeper) EndTurn(ctx context.Context, session string, info TurnInfo) (Turn, error) {
	k.mu.Lock()
	before, changing := k.before[session]
	failed := k.failed[session]
	delete(k.before, session)
	delete(k.failed, session)
	k.mu.Unlock()
	t := Turn{Seq: info.Seq, Text: firstLine(info.Text), HistoryLen: info.HistoryLen, Convo: Kept}
	if info.Opening != nil {
		t.Opening = digest(*info.Opening)
	}
	var err error
	if changing {
		var after Snapshot
		after, err = k.store.Snapshot(ctx)
		if err == nil {
			undo, redo := lost(before.Skipped, after.Skipped)
			// A turn that changed only files past the caps is journaled
			// too: its undo must name them, not say there is nothing.
			if after.Tree != before.Tree || after.State != before.State || len(undo)+len(redo) > 0 {
				t.Before, t.After, t.Files = before.Tree, after.Tree, Kept
				t.BeforeState, t.AfterState = before.State, after.State
				t.Skipped, t.SkippedAfter = undo, redo
				t.Uncovered = info.Uncovered
			}
		}
	}
	j, jerr := loadJournal(k.dir, session)
	if jerr != nil {
		return t, errors.Join(failed, err, jerr)
	}
	j.add(t)
	return t, errors.Join(failed, err, j.save())
}

// Turns are the journaled turns of session, oldest first.
func (k *Keeper) Turns(session string) ([]Turn, error) {
	j, err := loadJournal(k.dir, session)
	if err != nil {
		return nil, err
	}
	return j.Turns, nil
}

// Request says what an undo or a redo does: how many turns, and which
// halves of them.
type Request struct {
	N                   int
	Files, Conversation bool
}

// Outcome is what an undo or redo did to one turn.
type Outcome struct {
	Turn     Turn
	Restored Restored
	// Convo says the conversation was undone (or redone); ConvoProblem
	// says why it could not be.
	Convo        bool
	ConvoProblem string
}

// ErrNothing is returned when there is nothing to undo or redo.
var ErrNothing = errors.New("nothing to do")

// Undo undoes the last r.N turns of session that have something left to
// undo in the halves asked for, newest first: their files go back to the
// snapshot before the turn and the conversation to its length before it.
func (k *Keeper) Undo(ctx context.Context, session string, conv Conversation, r Request) ([]Outcome, error) {
	return k.step(ctx, session, conv, r, true)
}

// Redo re-applies the r.N turns undone last, oldest first.
func (k *Keeper) Redo(ctx context.Context, session string, conv Conversation, r Request) ([]Outcome, error) {
	return k.step(ctx, session, conv, r, false)
}

func (k *Keeper) step(ctx context.Context, session string, conv Conversation, r Request, undo bool) ([]Outcome, error) {
	j, err := loadJournal(k.dir, session)
	if err != nil {
		return nil, err
	}
	from, to := Kept, Undone
	if !undo {
		from, to = Undone, Kept
	}
	wants := func(t Turn) bool {
		return (r.Files && t.Files == from) || (r.Conversation && t.Convo == from)
	}
	// An undo takes the newest turns first. A redo takes the oldest
	// undone turn first: undos go newest first, so that is the one the
	// last undo took back.
	var picked []int
	for n := range j.Turns {
		i := n
		if undo {
			i = len(j.Turns) - 1 - n
		}
		if len(picked) < max(r.N, 1) && wants(j.Turns[i]) {
			picked = append(picked, i)
		}
	}
	if len(picked) == 0 {
		return nil, ErrNothing
	}
	var out []Outcome
	for _, i := range picked {
		t := &j.Turns[i]
		o := Outcome{}
		if r.Files && t.Files == from {
			expected, target := Point{t.After, t.AfterState}, Point{t.Before, t.BeforeState}
			if !undo {
				expected, target = target, expected
			}
			res, err := k.store.Restore(ctx, expected, target)
			if err != nil {
				return out, errors.Join(err, j.save())
			}
			o.Restored = res
			t.Files = to
		}
		if r.Conversation && t.Convo == from {
			if problem := moveConversation(conv, t, undo); problem != "" {
				o.ConvoProblem = problem
			} else {
				o.Convo = true
				t.Convo = to
			}
		}
		o.Turn = *t
		out = append(out, o)
	}
	return out, j.save()
}

// moveConversation shortens the history to before turn t (undo) or puts
// its messages back (redo); it returns why it could not.
func moveConversation(conv Conversation, t *Turn, undo bool) string {
	h := conv.History()
	if undo {
		if len(h) <= t.HistoryLen || h[t.HistoryLen].Role != llm.RoleUser ||
			(t.Opening != "" && digest(h[t.HistoryLen]) != t.Opening) {
			return "the conversation no longer holds this turn where it began (it was compacted, cleared or replaced since)"
		}
		removed := slices.Clone(h[t.HistoryLen:])
		if err := conv.SetHistory(h[:t.HistoryLen:t.HistoryLen]); err != nil {
			return err.Error()
		}
		t.Removed = removed
		return ""
	}
	if len(h) != t.HistoryLen {
		return fmt.Sprintf("the conversation has changed since the undo (%d messages, the turn began at %d)", len(h), t.HistoryLen)
	}
	if err := conv.SetHistory(append(slices.Clip(h), t.Removed...)); err != nil {
		return err.Error()
	}
	t.Removed = nil
	return ""
}

// digest identifies a message by its content, so that an undo can tell
// the turn's first message from another one at the same place.
func digest(m llm.Message) string {
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return s
}

// lost names the files the snapshots around a turn left out (over the
// caps) that the turn changed: those left out before it and changed,
// removed or replaced by it, which an undo cannot bring back, and those
// left out after it, which a redo cannot. A file left out both times and
// never touched is not named.
func lost(before, after map[string]Skip) (undo, redo []string) {
	for _, p := range unionKeys(before, after) {
		b, inBefore := before[p]
		a, inAfter := after[p]
		if inBefore && inAfter && a.stamp == b.stamp {
			continue
		}
		if inBefore {
			undo = append(undo, p+" ("+b.Why+")")
		}
		if inAfter {
			redo = append(redo, p+" ("+a.Why+")")
		}
	}
	return undo, redo
}
