package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/checkpoint"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

func (h *fakeHost) Checkpoints() *checkpoint.Keeper { return nil }

// cpHost is a fakeHost with checkpoints.
type cpHost struct {
	*fakeHost
	k *checkpoint.Keeper
}

func (h cpHost) Checkpoints() *checkpoint.Keeper { return h.k }

// checkpointed runs one turn on a new host's session whose change to the
// workspace (a.txt from "one" to "two", b.txt added) the keeper journals
// as the session's checkpoint would.
func checkpointed(t *testing.T) (cpHost, string) {
	t.Helper()
	ctx := context.Background()
	h := newHost(t, replay.Response{llm.TextDelta{Text: "done"}, llm.Finish{Reason: llm.StopEnd}})
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := checkpoint.Open(ctx, checkpoint.Options{Dir: filepath.Join(t.TempDir(), "repo"), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	k := checkpoint.NewKeeper(st, t.TempDir())
	id := h.session.ID()
	if err := k.BeforeChange(ctx, id); err != nil {
		t.Fatal(err)
	}
	for range h.session.Send(ctx, "change a") {
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := k.EndTurn(ctx, id, checkpoint.TurnInfo{Seq: 1, Text: "change a", HistoryLen: 0}); err != nil {
		t.Fatal(err)
	}
	return cpHost{h, k}, root
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "(missing)"
	}
	return string(b)
}

func TestCheckpointCommandsWithoutCheckpointsSaySo(t *testing.T) {
	h := newHost(t)
	for _, line := range []string{"/undo", "/redo", "/changes", "/diff"} {
		if _, err := run(t, h, line); err == nil || !strings.Contains(err.Error(), "checkpoints are off") {
			t.Errorf("%s: err = %v", line, err)
		}
	}
}

func TestUndoFilesThenConversationThenRedo(t *testing.T) {
	h, root := checkpointed(t)
	changes, err := runOn(t, h, "/changes")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(changes.Output, "modified a.txt") || !strings.Contains(changes.Output, "added    b.txt") {
		t.Fatalf("/changes:\n%s", changes.Output)
	}
	session, err := runOn(t, h, "/changes --session")
	if err != nil || !strings.HasPrefix(session.Output, "changed by this session (1 turn with changes):\n") ||
		len(session.Choices) != 1 || session.Choices[0].Line != "/diff --session" {
		t.Fatalf("/changes --session: %q %+v %v", session.Output, session.Choices, err)
	}
	review, err := runOn(t, h, "/diff review")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(review.Output, "hunk 1 of 2, a.txt:\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two") ||
		len(review.Choices) != 1 || review.Choices[0].Line != "/diff review 2" {
		t.Fatalf("/diff review: %q %+v", review.Output, review.Choices)
	}

	out, err := runOn(t, h, "/undo files")
	if err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(root, "a.txt")) != "one\n" || read(t, filepath.Join(root, "b.txt")) != "(missing)" {
		t.Fatalf("files after /undo files:\n%s", out.Output)
	}
	if n := len(h.session.History()); n != 2 {
		t.Fatalf("/undo files changed the conversation: %d messages", n)
	}
	if _, err := runOn(t, h, "/undo conversation"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.session.History()); n != 0 {
		t.Fatalf("/undo conversation left %d messages", n)
	}
	nothing, err := runOn(t, h, "/undo")
	if err != nil || nothing.Output != "nothing to undo in this session" {
		t.Fatalf("a third /undo: %q %v", nothing.Output, err)
	}

	if _, err := runOn(t, h, "/redo"); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(root, "a.txt")) != "two\n" || read(t, filepath.Join(root, "b.txt")) != "new\n" {
		t.Fatal("/redo did not bring the files back")
	}
	if h := h.session.History(); len(h) != 2 || h[0].Role != llm.RoleUser {
		t.Fatalf("/redo did not bring the conversation back: %d messages", len(h))
	}
}

func TestUndoRefusesAFileThePersonChanged(t *testing.T) {
	h, root := checkpointed(t)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runOn(t, h, "/undo")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Output, "left alone: a.txt: changed since the turn") || read(t, filepath.Join(root, "a.txt")) != "mine\n" {
		t.Fatalf("/undo overwrote or did not name the person's edit:\n%s", out.Output)
	}
	if read(t, filepath.Join(root, "b.txt")) != "(missing)" {
		t.Fatal("/undo did not undo the other file")
	}
}

func TestUndoUsage(t *testing.T) {
	h, _ := checkpointed(t)
	for _, line := range []string{"/undo 0", "/undo everything", "/redo files conversation", "/changes now", "/diff review x"} {
		if _, err := runOn(t, h, line); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("%s: err = %v", line, err)
		}
	}
}

// Files the turn changed past the checkpoint's caps are named one by one:
// an undo names the one it could not bring back and the one it left as the
// turn made it; a redo names the one it could not bring back.
func TestUndoAndRedoNameTheFilesPastTheCaps(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, replay.Response{llm.TextDelta{Text: "done"}, llm.Finish{Reason: llm.StopEnd}})
	root := t.TempDir()
	for name, content := range map[string]string{"app.db": "a database", "small.txt": "s\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := checkpoint.Open(ctx, checkpoint.Options{Dir: filepath.Join(t.TempDir(), "repo"), Root: root, MaxFileBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	k := checkpoint.NewKeeper(st, t.TempDir())
	id := h.session.ID()
	if err := k.BeforeChange(ctx, id); err != nil {
		t.Fatal(err)
	}
	for range h.session.Send(ctx, "clean") {
	}
	if err := os.Remove(filepath.Join(root, "app.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "made.bin"), []byte("a large output"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := k.EndTurn(ctx, id, checkpoint.TurnInfo{Seq: 1, Text: "clean", HistoryLen: 0}); err != nil {
		t.Fatal(err)
	}
	ch := cpHost{h, k}
	out, err := runOn(t, ch, "/undo files")
	if err != nil {
		t.Fatal(err)
	}
	undo := out.Output
	for _, want := range []string{
		"  not in the checkpoint, so not brought back: app.db (10 bytes, over the 8-byte limit for one file)",
		"  not in the checkpoint, so left as the turn made it: made.bin (14 bytes, over the 8-byte limit for one file)",
	} {
		if !strings.Contains(undo, want) {
			t.Errorf("the undo says:\n%s\nwithout %q", undo, want)
		}
	}
	out, err = runOn(t, ch, "/redo files")
	if err != nil {
		t.Fatal(err)
	}
	redo := out.Output
	if want := "  not in the checkpoint, so not brought back: made.bin (14 bytes, over the 8-byte limit for one file)"; !strings.Contains(redo, want) || strings.Contains(redo, "app.db") {
		t.Errorf("the redo says:\n%s\nwant %q alone", redo, want)
	}
}
