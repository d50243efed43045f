package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/store"
)

// place is a workspace and a state directory that several runs share,
// as consecutive shiro processes in one project would.
type place struct {
	work, home string
}

func newPlace(t *testing.T) place { return place{work: t.TempDir(), home: t.TempDir()} }

// openAt starts a session in p with its own store on p's database (as a
// new process would), against srv.
func openAt(t *testing.T, p place, srv *llmtest.Server, opts app.Options) (*app.App, *store.Store) {
	t.Helper()
	env := map[string]string{"SHIRO_HOME": p.home, "SHIRO_API_KEY": "test-key", "HOME": p.home}
	loaded, err := app.Load(func(k string) string { return env[k] }, p.work,
		config.Flags{Provider: "custom-anthropic", BaseURL: srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(loaded.Paths.SessionsDB(), store.Options{})
	t.Cleanup(func() { _ = st.Close() })
	opts.Loaded, opts.Store = loaded, st
	a, err := app.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, st
}

// untilDone reads the session's events up to the end of the next turn.
func untilDone(a *app.App) []protocol.Event {
	var evs []protocol.Event
	for e := range a.Session.Events() {
		evs = append(evs, e)
		if _, ok := e.(protocol.DoneEvent); ok {
			break
		}
	}
	return evs
}

func TestASessionIsKeptAndContinued(t *testing.T) {
	p := newPlace(t)
	srv := llmtest.New(t,
		llmtest.Reply{Text: "Noted.", Usage: llmtest.Usage{InputTokens: 40, OutputTokens: 4}},
		llmtest.Reply{Text: "Still here.", Usage: llmtest.Usage{InputTokens: 50, OutputTokens: 5}},
	)
	first, st := openAt(t, p, srv, app.Options{Yolo: true})
	run(t.Context(), first.Session, "remember the word teal")
	if err := first.Notebook.Replace("", []protocol.Task{{Content: "pick a colour", Status: notebook.InProgress}}); err != nil {
		t.Fatal(err)
	}
	id := first.Session.ID()
	first.Close()

	saved, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.History) != 2 || saved.Session.Cwd != first.Env.Root || saved.Session.Title != "remember the word teal" ||
		saved.Session.Usage.InputTokens != 40 || saved.Session.Model != "test-model" || saved.Session.Provider != "custom-anthropic" {
		t.Fatalf("saved %+v with %d messages", saved.Session, len(saved.History))
	}
	if len(saved.Tasks) != 1 || saved.Tasks[0].Content != "pick a colour" {
		t.Fatalf("saved tasks %+v", saved.Tasks)
	}

	second, _ := openAt(t, p, srv, app.Options{Yolo: true, Continue: true})
	if second.Session.ID() != id {
		t.Fatalf("-c took up %s, want %s", second.Session.ID(), id)
	}
	if todos := second.Notebook.Tasks(); len(todos) != 1 || todos[0].Content != "pick a colour" {
		t.Fatalf("the resumed session's task list: %+v", todos)
	}
	var history protocol.HistoryEvent
	var notice string
	if _, err := second.Session.Submit(protocol.UserTurn{Text: "which word?"}); err != nil {
		t.Fatal(err)
	}
	for _, e := range untilDone(second) {
		switch e := e.(type) {
		case protocol.HistoryEvent:
			history = e
		case protocol.NoticeEvent:
			if strings.HasPrefix(e.Text, "continuing session") {
				notice = e.Text
			}
		}
	}
	if len(history.Messages) != 2 || history.Messages[0].Text != "remember the word teal" || history.Messages[1].Text != "Noted." {
		t.Fatalf("history event %+v", history)
	}
	if want := `continuing session ` + store.Short(id) + `: 2 messages, "remember the word teal"`; notice != want {
		t.Fatalf("notice %q, want %q", notice, want)
	}
	calls := srv.ModelCalls()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(calls[len(calls)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 3 || !strings.Contains(string(body.Messages[0].Content), "teal") || !strings.Contains(string(body.Messages[2].Content), "which word?") {
		t.Fatalf("the continued request does not carry the history: %s", calls[len(calls)-1].Body)
	}
}

func TestANewSessionStartsWithAnEmptyTaskList(t *testing.T) {
	p := newPlace(t)
	srv := llmtest.New(t)
	first, _ := openAt(t, p, srv, app.Options{})
	if err := first.Notebook.Replace("", []protocol.Task{{Content: "old work", Status: notebook.Pending}}); err != nil {
		t.Fatal(err)
	}
	first.Close()
	second, _ := openAt(t, p, srv, app.Options{})
	if todos := second.Notebook.Tasks(); len(todos) != 0 {
		t.Fatalf("a new session inherited %+v", todos)
	}
}

func TestContinueAndResumeSayWhatIsMissing(t *testing.T) {
	p := newPlace(t)
	srv := llmtest.New(t)
	env := map[string]string{"SHIRO_HOME": p.home, "SHIRO_API_KEY": "k", "HOME": p.home}
	loaded, err := app.Load(func(k string) string { return env[k] }, p.work, config.Flags{Provider: "custom-anthropic", BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Open(t.Context(), app.Options{Loaded: loaded, Continue: true}); err == nil || !strings.Contains(err.Error(), "no saved session for this directory") {
		t.Fatalf("-c with nothing saved: %v", err)
	}
	if _, err := app.Open(t.Context(), app.Options{Loaded: loaded, Resume: "abcdef"}); err == nil || !strings.Contains(err.Error(), `no such session matching "abcdef"`) {
		t.Fatalf("-r with an unknown id: %v", err)
	}
}

func TestPickSessionOffersChoicesAndResumeSwitches(t *testing.T) {
	p := newPlace(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	first, _ := openAt(t, p, srv, app.Options{})
	run(t.Context(), first.Session, "first topic")
	if err := first.Notebook.Replace("", []protocol.Task{{Content: "topic task", Status: notebook.Pending}}); err != nil {
		t.Fatal(err)
	}
	id := first.Session.ID()
	first.Close()

	second, _ := openAt(t, p, srv, app.Options{Attended: true, PickSession: true})
	var picker protocol.CommandResultEvent
	for e := range second.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "resume" {
			picker = r
			break
		}
	}
	if len(picker.Choices) != 1 || picker.Choices[0].Line != "/resume "+id || !strings.Contains(picker.Output, "first topic") {
		t.Fatalf("picker %+v", picker)
	}
	if _, err := second.Session.Submit(protocol.Command{Line: picker.Choices[0].Line}); err != nil {
		t.Fatal(err)
	}
	var result protocol.CommandResultEvent
	var sawHistory, sawTasks bool
	for e := range second.Session.Events() {
		switch e := e.(type) {
		case protocol.HistoryEvent:
			sawHistory = len(e.Messages) == 2
		case protocol.TasksEvent:
			sawTasks = len(e.Tasks) == 1 && e.Tasks[0].Content == "topic task"
		case protocol.CommandResultEvent:
			result = e
		}
		if result.Command != "" {
			break
		}
	}
	if result.Error != "" || !strings.HasPrefix(result.Output, "resumed "+store.Short(id)) || !sawHistory || !sawTasks || second.Session.ID() != id {
		t.Fatalf("result %+v; history %v, tasks %v, id %s", result, sawHistory, sawTasks, second.Session.ID())
	}
}
