package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// history is a Conversation in memory.
type history struct{ msgs []llm.Message }

func (h *history) History() []llm.Message { return h.msgs }
func (h *history) SetHistory(m []llm.Message) error {
	h.msgs = m
	return nil
}

// turn runs one journaled turn that writes files, as a session would.
func turn(t *testing.T, k *Keeper, h *history, seq int, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	start := len(h.msgs)
	h.msgs = append(h.msgs, llm.UserText(fmt.Sprint("turn ", seq)), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "ok"}}})
	if len(files) > 0 {
		if err := k.BeforeChange(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		for p, c := range files {
			write(t, k.Store().Root(), p, c, 0o644)
		}
	}
	opening := h.msgs[start]
	if _, err := k.EndTurn(ctx, "s1", TurnInfo{Seq: seq, Text: fmt.Sprint("turn ", seq), HistoryLen: start, Opening: &opening}); err != nil {
		t.Fatal(err)
	}
}

func newKeeper(t *testing.T, root string) *Keeper {
	t.Helper()
	return NewKeeper(openStore(t, root, Options{}), t.TempDir())
}

func TestANewTurnGivesUpTheRedo(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	k, h := newKeeper(t, root), &history{}
	turn(t, k, h, 1, map[string]string{"a": "1"})
	turn(t, k, h, 2, map[string]string{"a": "2"})
	both := Request{N: 1, Files: true, Conversation: true}
	if _, err := k.Undo(ctx, "s1", h, both); err != nil {
		t.Fatal(err)
	}
	if len(h.msgs) != 2 || tree(t, root)["a"] != "-rw-r--r-- 1" {
		t.Fatalf("after undo: %d messages, tree %q", len(h.msgs), tree(t, root))
	}
	turn(t, k, h, 3, map[string]string{"b": "3"})
	if _, err := k.Redo(ctx, "s1", h, both); !errors.Is(err, ErrNothing) {
		t.Fatalf("redo after a new turn: %v", err)
	}
	// Two undos take back turns 3 and 1, newest first.
	out, err := k.Undo(ctx, "s1", h, Request{N: 2, Files: true, Conversation: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Turn.Seq != 3 || out[1].Turn.Seq != 1 || len(h.msgs) != 0 {
		t.Fatalf("undo 2: %+v, %d messages", out, len(h.msgs))
	}
	if got := tree(t, root); len(got) != 0 {
		t.Fatalf("tree after undoing everything: %q", got)
	}
	// The journal outlives the keeper: a new process redoes.
	again := NewKeeper(k.Store(), k.dir)
	if _, err := again.Redo(ctx, "s1", h, Request{N: 2, Files: true, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root); got["a"] != "-rw-r--r-- 1" || got["b"] != "-rw-r--r-- 3" || len(h.msgs) != 4 {
		t.Fatalf("after redo 2: %q, %d messages", got, len(h.msgs))
	}
}

func TestATurnWithoutChangesIsJournaledForItsConversation(t *testing.T) {
	root := t.TempDir()
	k, h := newKeeper(t, root), &history{}
	turn(t, k, h, 1, nil)
	turns, err := k.Turns("s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 1 || turns[0].Files != None || turns[0].Convo != Kept {
		t.Fatalf("turns: %+v", turns)
	}
	if _, err := k.Undo(context.Background(), "s1", h, Request{N: 1, Files: true, Conversation: true}); err != nil || len(h.msgs) != 0 {
		t.Fatalf("undo: %v, %d messages", err, len(h.msgs))
	}
}

// After a compaction the place where a turn began holds another message
// (the summary, or a later exchange): undoing that turn's conversation is
// refused and the history is left alone, while its files still come back.
func TestUndoAfterACompactionLeavesTheConversationAlone(t *testing.T) {
	root := t.TempDir()
	k, h := newKeeper(t, root), &history{}
	turn(t, k, h, 1, map[string]string{"a": "1"})
	turn(t, k, h, 2, map[string]string{"a": "2"})
	turn(t, k, h, 3, map[string]string{"a": "3"})
	// Compacted: the first prompt, a summary, and the last exchange.
	compacted := []llm.Message{h.msgs[0], llm.UserText("summary of turns 1-2"), h.msgs[4], h.msgs[5]}
	h.msgs = slices.Clone(compacted)
	out, err := k.Undo(context.Background(), "s1", h, Request{N: 2, Files: true, Conversation: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Convo || out[1].Convo || !strings.Contains(out[1].ConvoProblem, "compacted") {
		t.Fatalf("outcomes: %+v", out)
	}
	if tree(t, root)["a"] != "-rw-r--r-- 1" {
		t.Fatalf("files not restored: %q", tree(t, root))
	}
	if !slices.EqualFunc(h.msgs, compacted, func(a, b llm.Message) bool { return a.PlainText() == b.PlainText() }) {
		t.Fatalf("history changed: %d messages", len(h.msgs))
	}
}

// objectBytes is the size of the private repository's objects.
func objectBytes(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(filepath.Join(s.opts.Dir, "objects"), func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Twenty turns that each change one small file of a thousand add storage
// for what changed (the file and the trees above it), not for the
// workspace.
func TestStorageGrowsWithTheChangeNotTheWorkspace(t *testing.T) {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		b := make([]byte, 1024)
		for j := range b {
			b[j] = 'a' + byte(rng.IntN(26))
		}
		write(t, root, fmt.Sprintf("d%02d/f%03d.txt", i%100, i), string(b), 0o644)
	}
	k, h := newKeeper(t, root), &history{}
	turn(t, k, h, 0, map[string]string{"d00/f000.txt": "first"})
	initial := objectBytes(t, k.Store())
	for i := 1; i <= 20; i++ {
		turn(t, k, h, i, map[string]string{fmt.Sprintf("d%02d/f%03d.txt", i, i): fmt.Sprint("changed in turn ", i)})
	}
	grown := objectBytes(t, k.Store()) - initial
	t.Logf("workspace snapshot: %d bytes; 20 one-file turns added %d bytes", initial, grown)
	if grown > 20*8<<10 || grown*10 > initial {
		t.Fatalf("20 one-file turns added %d bytes to a %d-byte store", grown, initial)
	}
}
