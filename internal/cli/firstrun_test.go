package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/tui"
)

// firstRunWait bounds a failure only; a passing test never waits it out.
const firstRunWait = time.Minute

// terminal is what the UI wrote, kept whole so a test can wait for text.
type terminal struct {
	mu      sync.Mutex
	buf     strings.Builder
	changed chan struct{}
}

func (s *terminal) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

// waitFor waits until every string has been drawn since the last mark.
func (s *terminal) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.NewTimer(firstRunWait)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		plain, changed := ansi.Strip(s.buf.String()), s.changed
		s.mu.Unlock()
		missing := ""
		for _, w := range want {
			if !strings.Contains(plain, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %q on screen", missing)
		}
	}
}

// With no key anywhere and an empty $SHIRO_HOME, shiro opens /provider;
// the person picks the custom OpenAI-compatible preset, gives the fake
// server's address, pastes a key, picks a model from the server's list and
// gets a first answer, all without leaving the UI. The key is saved
// privately and the session uses the new provider at once.
func TestFirstRunSetsUpAProviderWithoutLeavingTheUI(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "Hello from the fake server."})
	srv.Models = []string{"fake-a", "fake-b"}
	home, work := t.TempDir(), t.TempDir()
	keys, typed := io.Pipe()
	screen := &terminal{changed: make(chan struct{})}
	ui := func(ctx context.Context, s Session, _ UIOptions) (string, error) {
		res, err := tui.Run(ctx, s, tui.Options{In: keys, Out: screen,
			Program: []tea.ProgramOption{tea.WithWindowSize(110, 40), tea.WithoutSignals()}})
		return res.Farewell(), err
	}
	var out, errOut strings.Builder
	stdio := IO{
		In: strings.NewReader(""), Out: &syncWriter{b: &out}, Err: &syncWriter{b: &errOut},
		Getenv: func(k string) string { return map[string]string{"SHIRO_HOME": home, "HOME": home}[k] },
		Getwd:  func() (string, error) { return work, nil }, IsTTYIn: true, IsTTYOut: true, UI: ui,
	}
	code := make(chan int, 1)
	go func() { code <- Run(t.Context(), nil, stdio) }()
	t.Cleanup(func() { _ = typed.Close() })
	key := func(s string) {
		t.Helper()
		if _, err := io.WriteString(typed, s); err != nil {
			t.Fatal(err)
		}
	}

	screen.waitFor(t, "No API key is set up yet", "Custom OpenAI-compatible")
	// The screen is drawn as differences from the last frame, so what is
	// typed is not waited for; what the session answers is.
	key("custom-openai\r") // filters the presets to one, and picks it
	screen.waitFor(t, "needs the address of its API", "base URL:")
	key(srv.URL + "\r")
	screen.waitFor(t, "Paste your API key")
	key("\x1b[200~sk-first-run-key\x1b[201~\r") // a bracketed paste
	screen.waitFor(t, "Choose a model (2 from "+srv.URL+")", "› fake-a", "fake-b")
	key("\x1b[B") // down: fake-b
	screen.waitFor(t, "› fake-b")
	key("\r")
	screen.waitFor(t, "Your next message uses it.")
	key("hello\r")
	screen.waitFor(t, "Hello from the fake server.")
	key("/exit\r")
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d, stderr %s", c, errOut.String())
		}
	case <-time.After(firstRunWait):
		t.Fatal("shiro did not exit")
	}

	file := filepath.Join(home, ".shiro-neko", "config.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]string
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatalf("config %s: %v", data, err)
	}
	want := map[string]string{"provider": "custom-openai", "baseURL": srv.URL, "apiKey": "sk-first-run-key", "model": "fake-b"}
	for k, v := range want {
		if saved[k] != v {
			t.Errorf("config %s = %q, want %q (file: %s)", k, saved[k], v, data)
		}
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v, want 0600", fi.Mode().Perm())
	}
	calls := srv.ModelCalls()
	if len(calls) != 1 || calls[0].Header.Get("Authorization") != "Bearer sk-first-run-key" || !strings.Contains(string(calls[0].Body), `"model":"fake-b"`) {
		t.Fatalf("model calls: %+v", calls)
	}
	if strings.Contains(screen.buf.String(), "sk-first-run-key") {
		t.Fatal("the key was drawn on screen")
	}
}
