package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendHistoryDropsRepeatsAndKeepsTheNewest(t *testing.T) {
	var h []string
	h = appendHistory(h, "a")
	h = appendHistory(h, "a")
	h = appendHistory(h, "b")
	h = appendHistory(h, "a")
	if got := strings.Join(h, ","); got != "a,b,a" {
		t.Fatalf("history = %s", got)
	}
	for i := range 250 {
		h = appendHistory(h, fmt.Sprint(i))
	}
	if len(h) != historyLimit || h[0] != "50" || h[len(h)-1] != "249" {
		t.Fatalf("history holds %d, from %s to %s", len(h), h[0], h[len(h)-1])
	}
}

// A history file that is not a list is not imported, and is left as it
// was: shiro no longer writes it.
func TestBrokenHistoryFileIsLeftAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	if err := os.WriteFile(path, []byte(`{"not":"a list"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHistory(t.Context(), Options{HistoryPath: path})
	if err := h.add("x"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"not":"a list"}` {
		t.Fatalf("broken history overwritten: %s", b)
	}
	if got := strings.Join(h.entries, ","); got != "x" {
		t.Fatalf("history = %q", got)
	}
}

func TestHistoryBrowsingKeepsTheDraft(t *testing.T) {
	h := openHistory(t.Context(), Options{})
	for _, p := range []string{"first", "second"} {
		if err := h.add(p); err != nil {
			t.Fatal(err)
		}
	}
	steps := []string{}
	if s, ok := h.older("my draft"); ok {
		steps = append(steps, s)
	}
	if s, ok := h.older("ignored"); ok {
		steps = append(steps, s)
	}
	if _, ok := h.older("ignored"); ok {
		t.Fatal("went past the oldest entry")
	}
	if s, ok := h.newer(); ok {
		steps = append(steps, s)
	}
	if s, ok := h.newer(); ok {
		steps = append(steps, s)
	}
	if _, ok := h.newer(); ok {
		t.Fatal("went past the draft")
	}
	if got := strings.Join(steps, "|"); got != "second|first|second|my draft" {
		t.Fatalf("browsing = %s", got)
	}
}

// Up and down in the input walk the saved history of the project.
func TestUpRecallsPromptsFromEarlierSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.json")
	if err := os.WriteFile(path, []byte(`["old prompt", "newer prompt"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDriver(t, newFakeSession(t), Options{HistoryPath: path})
	d.press("up")
	d.waitText("› newer prompt")
	d.press("up")
	d.waitText("› old prompt")
	d.press("down")
	d.press("down")
	d.waitText("Ask shiro, or type / for commands")
}

func FuzzParseHistory(f *testing.F) {
	f.Add([]byte(`["a","b"]`))
	f.Add([]byte(``))
	f.Add([]byte(`{"x":1}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte("[\"\\u0000\"]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseHistory("h.json", data)
		if err != nil {
			if !strings.Contains(err.Error(), "h.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(entries) > historyLimit {
			t.Fatalf("%d entries kept", len(entries))
		}
	})
}
