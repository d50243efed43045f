package store

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// clock is a fake time source that moves one second per reading, so that
// "newest" never depends on the machine's speed.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func newStore(t testing.TB) *Store {
	t.Helper()
	c := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	s := New(filepath.Join(t.TempDir(), "state", "sessions.db"), Options{Now: c.now})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func head(id, cwd string) Head { return Head{ID: id, Cwd: cwd, Provider: "anthropic", Model: "m1"} }

func user(text string) Step { return Step{Message: llm.UserText(text)} }

func assistant(text string, calls ...llm.ToolCall) Step {
	m := llm.Message{Role: llm.RoleAssistant}
	if text != "" {
		m.Parts = append(m.Parts, llm.Text{Text: text})
	}
	for _, c := range calls {
		m.Parts = append(m.Parts, c)
	}
	return Step{Message: m, Model: "m1", Usage: llm.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 50}}
}

func results(rs ...llm.ToolResult) Step {
	m := llm.Message{Role: llm.RoleTool}
	for _, r := range rs {
		m.Parts = append(m.Parts, r)
	}
	return Step{Message: m}
}

func call(id, name, input string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func mustAppend(t testing.TB, s *Store, h Head, steps ...Step) {
	t.Helper()
	if err := s.Append(context.Background(), h, steps...); err != nil {
		t.Fatal(err)
	}
}

// messagesJSON renders messages for comparison: the store's own encoding.
func messagesJSON(t testing.TB, ms []llm.Message) string {
	t.Helper()
	b, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewOpensNothingUntilUsed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "sessions.db")
	s := New(path, Options{})
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("New touched the disk: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(context.Background(), ListOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the first use did not create the database: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("database mode %v, want 0600 (it holds whole conversations)", fi.Mode().Perm())
	}
	_ = s.Close()
}

func TestAppendedStepsLoadBackInOrder(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	h := head("s1", "/work/p")
	steps := []Step{
		user("fix the parser\nit breaks on tabs"),
		assistant("Reading it.", call("c1", "read_file", `{"path":"parse.go"}`)),
		results(llm.ToolResult{CallID: "c1", Name: "read_file", Output: "package parse"}),
		assistant("Done."),
	}
	for _, st := range steps {
		mustAppend(t, s, h, st) // one commit per step, as the session does
	}
	snap, err := s.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var want []llm.Message
	for _, st := range steps {
		want = append(want, st.Message)
	}
	if got := messagesJSON(t, snap.History); got != messagesJSON(t, want) {
		t.Fatalf("history\n got %s\nwant %s", got, messagesJSON(t, want))
	}
	sess := snap.Session
	if sess.Title != "fix the parser" || sess.Cwd != "/work/p" || sess.Messages != 4 || sess.Model != "m1" || sess.Provider != "anthropic" {
		t.Errorf("session %+v", sess)
	}
	wantUsage := llm.Usage{InputTokens: 200, OutputTokens: 20, CacheReadTokens: 100}
	if sess.Usage != wantUsage {
		t.Errorf("usage %+v, want %+v (the sum of the steps)", sess.Usage, wantUsage)
	}
	if !sess.Updated.After(sess.Created) {
		t.Errorf("updated %v is not after created %v", sess.Updated, sess.Created)
	}
}

func TestTranscriptKeepsPerStepUsage(t *testing.T) {
	s := newStore(t)
	mustAppend(t, s, head("s1", "/p"), user("hi"), assistant("hello"))
	_, entries, err := s.Transcript(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Usage != nil {
		t.Fatalf("entries %+v", entries)
	}
	if u := entries[1].Usage; u == nil || u.InputTokens != 100 || entries[1].Model != "m1" {
		t.Fatalf("the assistant step's usage was not kept: %+v", entries[1])
	}
}

func TestMarkersReplaceTheLoadedHistoryButKeepTheTranscript(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	h := head("s1", "/p")
	mustAppend(t, s, h, user("first"), assistant("one"))
	summary := []llm.Message{llm.UserText("Summary: we said one.")}
	if err := s.Mark(ctx, h, Marker{Kind: MarkCompacted, History: summary}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, h, user("second"), assistant("two"))
	snap, err := s.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := append(summary, user("second").Message, assistant("two").Message)
	if messagesJSON(t, snap.History) != messagesJSON(t, want) {
		t.Fatalf("history after a compaction marker: %s", messagesJSON(t, snap.History))
	}
	if err := s.Mark(ctx, h, Marker{Kind: MarkCleared}); err != nil {
		t.Fatal(err)
	}
	if snap, _ = s.Load(ctx, "s1"); len(snap.History) != 0 {
		t.Fatalf("history after a clear: %s", messagesJSON(t, snap.History))
	}
	_, entries, err := s.Transcript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		if e.Marker != nil {
			kinds = append(kinds, string(e.Marker.Kind))
		} else {
			kinds = append(kinds, string(e.Message.Role))
		}
	}
	if got := strings.Join(kinds, " "); got != "user assistant compacted user assistant cleared" {
		t.Fatalf("transcript %s", got)
	}
	if err := s.Mark(ctx, h, Marker{Kind: "bogus"}); err == nil {
		t.Fatal("an unknown marker kind was stored")
	}
}

func TestListNewestAndDirectories(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustAppend(t, s, head("a", "/p"), user("a"))
	mustAppend(t, s, head("b", "/q"), user("b"))
	mustAppend(t, s, head("c", "/p"), user("c"))
	mustAppend(t, s, head("a", "/p"), assistant("a again")) // a is now the newest
	if err := s.SaveTasks(ctx, head("empty", "/p"), []protocol.Task{{Content: "x", Status: "pending"}}); err != nil {
		t.Fatal(err)
	}
	ids := func(list []Session) string {
		var out []string
		for _, x := range list {
			out = append(out, x.ID)
		}
		return strings.Join(out, ",")
	}
	all, err := s.List(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(all); got != "a,c,b" {
		t.Errorf("list all: %s (a session without messages is not listed)", got)
	}
	here, _ := s.List(ctx, ListOptions{Cwd: "/p"})
	if got := ids(here); got != "a,c" {
		t.Errorf("list /p: %s", got)
	}
	one, _ := s.List(ctx, ListOptions{Limit: 1})
	if got := ids(one); got != "a" {
		t.Errorf("limit 1: %s", got)
	}
	newest, err := s.Newest(ctx, "/q")
	if err != nil || newest.ID != "b" {
		t.Errorf("newest in /q: %v %v", newest.ID, err)
	}
	if _, err := s.Newest(ctx, "/nowhere"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no saved session for this directory") {
		t.Errorf("newest in an empty directory: %v", err)
	}
}

func TestResolveByIDOrUniquePrefix(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"3f2a9c1d-0000-4000-8000-000000000001", "3f2a9c1d-0000-4000-8000-000000000002", "77aa0000-0000-4000-8000-000000000003"} {
		mustAppend(t, s, head(id, "/p"), user("about "+id[len(id)-1:]))
	}
	got, err := s.Resolve(ctx, "77A")
	if err != nil || got.ID != "77aa0000-0000-4000-8000-000000000003" {
		t.Fatalf("prefix 77A: %v %v", got.ID, err)
	}
	got, err = s.Resolve(ctx, "3f2a9c1d-0000-4000-8000-000000000002")
	if err != nil || got.Title != "about 2" {
		t.Fatalf("whole id: %+v %v", got, err)
	}
	_, err = s.Resolve(ctx, "3f2a9c1d")
	if err == nil || !strings.Contains(err.Error(), "more than one session") || !strings.Contains(err.Error(), `"about 1"`) {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	if _, err = s.Resolve(ctx, "ffff"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"ffff"`) {
		t.Fatalf("no match: %v", err)
	}
	if _, err = s.Resolve(ctx, " "); err == nil {
		t.Fatal("an empty reference resolved")
	}
}

func TestTasksBelongToTheSession(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustAppend(t, s, head("s1", "/p"), user("plan"))
	mustAppend(t, s, head("s2", "/p"), user("other"))
	tasks := []protocol.Task{{Content: "write tests", Status: "in_progress"}, {Content: "ship", Status: "pending", Note: "after review"}}
	if err := s.SaveTasks(ctx, head("s1", "/p"), tasks); err != nil {
		t.Fatal(err)
	}
	one, _ := s.Load(ctx, "s1")
	two, _ := s.Load(ctx, "s2")
	if !reflect.DeepEqual(one.Tasks, tasks) {
		t.Errorf("s1 tasks %+v", one.Tasks)
	}
	if len(two.Tasks) != 0 {
		t.Errorf("s2 inherited tasks: %+v", two.Tasks)
	}
}

func TestRenameDeleteAndCreate(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustAppend(t, s, head("s1", "/p"), user("a long first prompt"), assistant("ok"))
	if err := s.Rename(ctx, "s1", "  parser work "); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, "s1"); got.Title != "parser work" {
		t.Errorf("title %q", got.Title)
	}
	if err := s.Rename(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename of a missing session: %v", err)
	}
	if err := s.Rename(ctx, "s1", " "); err == nil {
		t.Error("an empty title was accepted")
	}

	snap, _ := s.Load(ctx, "s1")
	fork := Head{ID: "s2", Cwd: "/p", ForkedFrom: "s1", Title: "parser work (fork)"}
	if err := s.Create(ctx, fork, snap.History); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, fork, snap.History); err == nil {
		t.Error("Create overwrote an existing session")
	}
	forked, _ := s.Load(ctx, "s2")
	if messagesJSON(t, forked.History) != messagesJSON(t, snap.History) || forked.Session.ForkedFrom != "s1" || forked.Session.Messages != 2 || forked.Session.Title != "parser work (fork)" {
		t.Errorf("fork %+v", forked.Session)
	}
	mustAppend(t, s, head("s2", "/p"), user("only in the fork"))
	if again, _ := s.Load(ctx, "s1"); len(again.History) != 2 {
		t.Errorf("appending to the fork changed the original: %d messages", len(again.History))
	}

	if err := s.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "s1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted session still there: %v", err)
	}
	if err := s.Delete(ctx, "s1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	db, _ := s.conn(ctx)
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM entries WHERE session_id = 's1'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("entries left behind: %d %v", left, err)
	}
	hits, err := s.Search(ctx, "long first", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Session.ID == "s1" {
			t.Errorf("the search index still finds the deleted session")
		}
	}
}

func TestTitleIsTheFirstLineCut(t *testing.T) {
	for in, want := range map[string]string{
		"  fix it\nmore":        "fix it",
		"a   b\tc":              "a b c",
		strings.Repeat("é", 70): strings.Repeat("é", 60) + "…",
	} {
		if got := Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAStepNeedsAnIDAndADirectory(t *testing.T) {
	s := newStore(t)
	if err := s.Append(context.Background(), Head{Cwd: "/p"}, user("x")); err == nil {
		t.Error("a step without a session id was stored")
	}
	if err := s.Append(context.Background(), Head{ID: "s"}, user("x")); err == nil {
		t.Error("a session without a directory was stored")
	}
}

func TestShortAndNewID(t *testing.T) {
	a, b := NewID(), NewID()
	if a == b || len(a) != 36 || Short(a) != a[:8] || Short("abc") != "abc" {
		t.Fatalf("ids %q %q", a, b)
	}
}

// Charged adds a call no entry carries to the session's total, which
// `shiro sessions show` prints; a session not stored yet is left alone.
func TestChargedUsageCountsInTheSessionsTotal(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustAppend(t, s, head("s1", "/p"), user("hi"), assistant("hello"))
	if err := s.Charged(ctx, "s1", llm.Usage{InputTokens: 7, OutputTokens: 3, CacheReadTokens: 2, CacheWriteTokens: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Charged(ctx, "nobody", llm.Usage{InputTokens: 7}); err != nil {
		t.Fatal(err)
	}
	sess, _, err := s.Transcript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Usage{InputTokens: 107, OutputTokens: 13, CacheReadTokens: 52, CacheWriteTokens: 1}); sess.Usage != want {
		t.Fatalf("usage %+v, want %+v: the step's and the charged call's", sess.Usage, want)
	}
}
