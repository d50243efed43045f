package commands_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/store"
)

func (h *fakeHost) Sessions() commands.Sessions { return nil }

// storeHost is a fakeHost whose sessions are kept in a real store.
type storeHost struct {
	*fakeHost
	st      *store.Store
	resumed []string
}

func (h *storeHost) Sessions() commands.Sessions { return h }
func (h *storeHost) Store() *store.Store         { return h.st }
func (h *storeHost) Resume(ctx context.Context, id string) (store.Session, error) {
	snap, err := h.st.Load(ctx, id)
	if err != nil {
		return store.Session{}, err
	}
	h.resumed = append(h.resumed, id)
	return snap.Session, h.session.Resume(id, snap.History)
}

func newStoreHost(t *testing.T, responses ...replay.Response) *storeHost {
	t.Helper()
	st := store.New(filepath.Join(t.TempDir(), "sessions.db"), store.Options{})
	t.Cleanup(func() { _ = st.Close() })
	return &storeHost{fakeHost: newHost(t, responses...), st: st}
}

// runOn runs line in a set over h; a history the outcome replaces is put
// in place as the session would (the session's side is agent's tests').
func runOn(t *testing.T, h commands.Host, line string) (agent.CommandOutcome, error) {
	t.Helper()
	out, err := commands.New(h, conversationOf(h)).Run(t.Context(), line)
	if r, ok := out.Change.(agent.Replace); ok {
		s := conversationOf(h).(*agent.Owner)
		if rerr := s.Resume(s.ID(), r.History); rerr != nil {
			t.Fatal(rerr)
		}
	}
	return out, err
}

// seed stores a session of two messages in dir.
func seed(t *testing.T, st *store.Store, id, dir, prompt string) {
	t.Helper()
	err := st.Append(context.Background(), store.Head{ID: id, Cwd: dir, Model: "m1"},
		store.Step{Message: llm.UserText(prompt)},
		store.Step{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "sure"}}}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSessionCommandsWithoutAStoreSaySo(t *testing.T) {
	h := newHost(t)
	for _, line := range []string{"/sessions", "/resume x", "/save", "/search x", "/fork", "/rename x"} {
		if _, err := run(t, h, line); err == nil || !strings.Contains(err.Error(), "keeps no sessions") {
			t.Errorf("%s: %v", line, err)
		}
	}
}

func TestSessionsListsThisDirectoryWithChoices(t *testing.T) {
	h := newStoreHost(t)
	here := h.session.Config().Cwd
	seed(t, h.st, "aaaa1111-0000-4000-8000-000000000001", here, "fix the parser")
	seed(t, h.st, "bbbb2222-0000-4000-8000-000000000002", "/elsewhere", "write docs")
	out, err := runOn(t, h, "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Output, "aaaa1111") || !strings.Contains(out.Output, "2 msg") || !strings.Contains(out.Output, "fix the parser") || strings.Contains(out.Output, "bbbb2222") {
		t.Fatalf("output:\n%s", out.Output)
	}
	if len(out.Choices) != 1 || out.Choices[0].Line != "/resume aaaa1111-0000-4000-8000-000000000001" {
		t.Fatalf("choices %+v", out.Choices)
	}
	all, _ := runOn(t, h, "/sessions all")
	if !strings.Contains(all.Output, "bbbb2222") || !strings.Contains(all.Output, "/elsewhere") {
		t.Fatalf("/sessions all:\n%s", all.Output)
	}
	if _, err := runOn(t, h, "/sessions bogus"); err == nil {
		t.Fatal("a bad argument was accepted")
	}
	// /resume without an id is the same picker.
	pick, _ := runOn(t, h, "/resume")
	if len(pick.Choices) != 1 {
		t.Fatalf("/resume picker %+v", pick)
	}
}

func TestResumeTakesUpAStoredSessionByPrefix(t *testing.T) {
	h := newStoreHost(t, replay.Response{llm.TextDelta{Text: "again"}, llm.Finish{Reason: llm.StopEnd}})
	seed(t, h.st, "cccc3333-0000-4000-8000-000000000003", h.session.Config().Cwd, "old work")
	out, err := runOn(t, h, "/resume cccc")
	if err != nil {
		t.Fatal(err)
	}
	if out.Output != `resumed cccc3333: 2 messages, "old work"` || h.session.ID() != "cccc3333-0000-4000-8000-000000000003" || len(h.session.History()) != 2 {
		t.Fatalf("output %q, id %s, %d messages", out.Output, h.session.ID(), len(h.session.History()))
	}
	again, _ := runOn(t, h, "/resume cccc3333")
	if !strings.Contains(again.Output, "already in session") || len(h.resumed) != 1 {
		t.Fatalf("resuming the current session: %q", again.Output)
	}
	if _, err := runOn(t, h, "/resume ffff"); err == nil || !strings.Contains(err.Error(), "no such session") {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestSaveRenameAndFork(t *testing.T) {
	h := newStoreHost(t)
	out, err := runOn(t, h, "/save")
	if err != nil || !strings.Contains(out.Output, "nothing to save yet") {
		t.Fatalf("/save before anything: %q %v", out.Output, err)
	}
	if _, err := runOn(t, h, "/rename x"); err == nil || !strings.Contains(err.Error(), "send a message first") {
		t.Fatalf("/rename before anything: %v", err)
	}
	if _, err := runOn(t, h, "/fork"); err == nil {
		t.Fatal("forked an empty conversation")
	}

	// Take up a stored conversation, then work with it.
	seed(t, h.st, "dddd4444-0000-4000-8000-000000000004", h.session.Config().Cwd, "plan the release")
	if _, err := runOn(t, h, "/resume dddd4444"); err != nil {
		t.Fatal(err)
	}
	id := h.session.ID()
	if out, _ = runOn(t, h, "/save"); !strings.Contains(out.Output, "saved "+id+": 2 messages") || !strings.Contains(out.Output, "shiro -r dddd4444") {
		t.Fatalf("/save: %q", out.Output)
	}
	if out, err = runOn(t, h, "/rename  release 2.0 "); err != nil || out.Output != `session dddd4444 is now "release 2.0"` {
		t.Fatalf("/rename: %q %v", out.Output, err)
	}
	if _, err := runOn(t, h, "/rename"); err == nil {
		t.Fatal("an empty rename was accepted")
	}
	out, err = runOn(t, h, "/fork")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Choices) != 1 || !strings.HasPrefix(out.Choices[0].Line, "/resume ") {
		t.Fatalf("/fork: %+v", out)
	}
	forkID := strings.TrimPrefix(out.Choices[0].Line, "/resume ")
	fork, err := h.st.Load(t.Context(), forkID)
	if err != nil {
		t.Fatal(err)
	}
	if fork.Session.ForkedFrom != id || fork.Session.Title != "release 2.0 (fork)" || len(fork.History) != 2 || h.session.ID() != id {
		t.Fatalf("fork %+v; running session %s", fork.Session, h.session.ID())
	}
}

func TestSearchFindsSessionsAnywhere(t *testing.T) {
	h := newStoreHost(t)
	seed(t, h.st, "eeee5555-0000-4000-8000-000000000005", "/other/project", "the flaky integration test")
	out, err := runOn(t, h, "/search flaky")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Output, "eeee5555") || !strings.Contains(out.Output, "(/other/project)") || len(out.Choices) != 1 {
		t.Fatalf("/search: %+v", out)
	}
	if out, _ = runOn(t, h, "/search nothinglikethis"); !strings.Contains(out.Output, "no saved session mentions") {
		t.Fatalf("no hits: %q", out.Output)
	}
	if _, err := runOn(t, h, "/search"); err == nil {
		t.Fatal("an empty search was accepted")
	}
}

func TestPickerMarksTheCurrentSession(t *testing.T) {
	if out := commands.Picker(nil, "", false); out.Output != "no saved sessions yet" {
		t.Fatalf("empty picker %q", out.Output)
	}
	list := []store.Session{{ID: "11111111-a", Title: "here", Messages: 3}, {ID: "22222222-b", Title: "other", Messages: 5}}
	out := commands.Picker(list, "11111111-a", false)
	lines := strings.Split(out.Output, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "* 11111111") || !strings.HasPrefix(lines[1], "  22222222") {
		t.Fatalf("picker:\n%s", out.Output)
	}
	if len(out.Choices) != 1 || out.Choices[0].Line != "/resume 22222222-b" {
		t.Fatalf("the current session is offered: %+v", out.Choices)
	}
}
