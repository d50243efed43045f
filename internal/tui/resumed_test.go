package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// A taken-up conversation is drawn as the transcript so far: the prompt,
// the answer, each call with its outcome, and a compaction summary as a
// notice rather than a prompt.
func TestAHistoryEventIsDrawnAsTheTranscript(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.HistoryEvent{Messages: []protocol.HistoryMessage{
		{Role: protocol.HistoryUser, Text: "read the notes please"},
		{Role: protocol.HistorySummary, Text: "Goal: tidy the notes. Files: notes.txt."},
		{Role: protocol.HistoryAssistant, Text: "The notes say hello.", Calls: []protocol.HistoryCall{
			{ID: "c1", Name: "read_file", Title: "notes.txt", Output: "1: hello"},
			{ID: "c2", Name: "bash", Title: "make test", Output: "exit 2", IsError: true},
		}},
	}})
	d := startDriver(t, s, Options{})
	frame := d.waitText("resumed conversation · 3 messages", "read the notes please", "The notes say hello.",
		"earlier messages were compacted into this summary:", "Goal: tidy the notes.")
	for _, want := range []string{"read_file notes.txt", "bash make test"} {
		if !strings.Contains(frame, want) {
			t.Fatalf("the call %q is not drawn:\n%s", want, frame)
		}
	}
	d.inspect(func(m *model) {
		if m.turn != nil {
			t.Errorf("a history opened a turn")
		}
	})
}

// A prompt with @ attachments is drawn as typed, the attachments named on
// one line under it, never their content.
func TestAResumedPromptNamesItsAttachments(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.HistoryEvent{Messages: []protocol.HistoryMessage{
		{Role: protocol.HistoryUser, Text: "why does @logs/app.log fail", Attached: []string{"logs/app.log", "@docs:docs://guide"}},
		{Role: protocol.HistoryAssistant, Text: "It runs out of disk."},
	}})
	d := startDriver(t, s, Options{})
	d.waitText("› why does @logs/app.log fail\n  attached logs/app.log, @docs:docs://guide\n", "It runs out of disk.")
}

// A conversation replaced while the session runs (/undo) is redrawn: the
// turn taken back is gone from the transcript, what stays is drawn again.
func TestAReplacedConversationIsRedrawn(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.HistoryEvent{Messages: []protocol.HistoryMessage{
		{Role: protocol.HistoryUser, Text: "first prompt stays"},
		{Role: protocol.HistoryAssistant, Text: "first answer stays"},
		{Role: protocol.HistoryUser, Text: "second prompt goes"},
		{Role: protocol.HistoryAssistant, Text: "second answer goes"},
	}})
	d := startDriver(t, s, Options{})
	d.waitText("second answer goes")
	s.emit(protocol.HistoryEvent{Replaced: true, Messages: []protocol.HistoryMessage{
		{Role: protocol.HistoryUser, Text: "first prompt stays"},
		{Role: protocol.HistoryAssistant, Text: "first answer stays"},
	}})
	frame := d.waitText("conversation as it now stands · 2 messages", "first prompt stays", "first answer stays")
	for _, gone := range []string{"second prompt goes", "second answer goes", "resumed conversation"} {
		if strings.Contains(frame, gone) {
			t.Fatalf("%q still shows after the conversation was replaced:\n%s", gone, frame)
		}
	}
}

// memoryPrompts is a shared prompt store for tests.
type memoryPrompts struct {
	mu      sync.Mutex
	entries []string
	fail    error
}

func (p *memoryPrompts) Load(context.Context) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.entries), p.fail
}

func (p *memoryPrompts) Add(_ context.Context, prompt string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	p.entries = appendHistory(p.entries, prompt)
	return nil
}

// With a shared store, up-arrow offers what the store holds, a sent prompt
// goes into it, and another window's prompt sent meanwhile shows after.
func TestPromptHistoryComesFromTheSharedStore(t *testing.T) {
	shared := &memoryPrompts{entries: []string{"older prompt"}}
	h := openHistory(t.Context(), Options{Prompts: shared, HistoryPath: "/nonexistent/never-used.json"})
	if got, ok := h.older(""); !ok || got != "older prompt" {
		t.Fatalf("up = %q %v", got, ok)
	}
	h.resetBrowse()
	shared.entries = append(shared.entries, "from the other window")
	if err := h.add("mine"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(shared.entries, ","); got != "older prompt,from the other window,mine" {
		t.Fatalf("store = %s", got)
	}
	if got := strings.Join(h.entries, ","); got != "older prompt,from the other window,mine" {
		t.Fatalf("browsing = %s", got)
	}

	shared.fail = errors.New("disk full")
	if err := h.add("kept in memory"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("a failing store: %v", err)
	}
	if got, _ := h.older(""); got != "kept in memory" {
		t.Fatalf("a prompt the store refused is not offered: %q", got)
	}
}

// The first time the store is used for a project, the prompts of its old
// history file move into it.
func TestTheOldHistoryFileMovesIntoAnEmptyStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(path, []byte(`["one","two"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	shared := &memoryPrompts{}
	h := openHistory(t.Context(), Options{Prompts: shared, HistoryPath: path})
	if got := strings.Join(h.entries, ","); got != "one,two" || strings.Join(shared.entries, ",") != "one,two" {
		t.Fatalf("browsing %q, store %q", got, shared.entries)
	}
	// A store that has prompts already is not added to.
	shared.entries = []string{"newer"}
	h = openHistory(t.Context(), Options{Prompts: shared, HistoryPath: path})
	if got := strings.Join(h.entries, ","); got != "newer" {
		t.Fatalf("browsing %q", got)
	}
}
