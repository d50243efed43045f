package learn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/memory"
)

// fakeModel records the learning calls and answers each with answer.
type fakeModel struct {
	mu      sync.Mutex
	prompts []string
	systems []string
	answer  string
}

func (f *fakeModel) complete(_ context.Context, system, prompt string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.systems = append(f.systems, system)
	f.prompts = append(f.prompts, prompt)
	return f.answer, nil
}

func (f *fakeModel) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.prompts)
}

// convo is a history the test grows turn by turn.
type convo struct{ msgs []llm.Message }

func (c *convo) turn(person, agentSays string) {
	c.msgs = append(c.msgs, llm.UserText(person), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: agentSays}}})
}

func (c *convo) history() []llm.Message { return c.msgs }

// setup is a learner on a fresh memory file and skill folder.
type setup struct {
	l         *Learner
	model     *fakeModel
	c         *convo
	memPath   string
	skillsDir string
	mem       *memory.Store
}

func newSetup(t *testing.T, answer string, tweak func(*Config)) *setup {
	t.Helper()
	dir := t.TempDir()
	s := &setup{model: &fakeModel{answer: answer}, c: &convo{}, memPath: filepath.Join(dir, "memory.json"), skillsDir: filepath.Join(dir, "skills")}
	var err error
	if s.mem, err = memory.Open(s.memPath, memory.Options{}); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Complete: s.model.complete, History: s.c.history, Memory: s.mem, SkillsDir: s.skillsDir, Inline: true,
		Now: func() time.Time { return time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC) }}
	if tweak != nil {
		tweak(&cfg)
	}
	s.l = New(t.Context(), cfg)
	t.Cleanup(s.l.Close)
	return s
}

func (s *setup) after(t *testing.T) []string {
	t.Helper()
	return s.l.Ended(t.Context(), agent.TurnEnd{}).Notices
}

func answerJSON(t *testing.T, p proposals) string {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return "Here is what I found:\n```json\n" + string(data) + "\n```"
}

// The original's schedule: nothing under six messages, then every third
// turn, or sooner once eight messages arrived since the last run.
func TestScheduleEveryThirdTurnFromSixMessages(t *testing.T) {
	s := newSetup(t, `{"memories": [], "skills": []}`, nil)
	var ran []int
	for turn := 1; turn <= 9; turn++ {
		s.c.turn("please look at file "+string(rune('a'+turn)), "looked")
		before := s.model.calls()
		s.after(t)
		if s.model.calls() > before {
			ran = append(ran, turn)
		}
	}
	// Turn 3 has six messages and is the third; 6 and 9 follow.
	if want := []int{3, 6, 9}; !equalInts(ran, want) {
		t.Fatalf("learned after turns %v, want %v", ran, want)
	}

	// Long turns (tool calls) pass eight new messages before a third turn.
	s = newSetup(t, `{"memories": []}`, nil)
	for range 4 {
		s.c.msgs = append(s.c.msgs, llm.UserText("go on"))
	}
	s.c.turn("build it", "built")
	s.c.turn("test it", "tested")
	s.after(t) // turn 1, eight messages
	s.c.turn("ship it", "shipped")
	s.after(t) // turn 2
	if n := s.model.calls(); n != 1 {
		t.Fatalf("%d learning calls, want 1 (after the first turn, with eight new messages)", n)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A correction is the strongest signal: it runs the learner at once, on
// a short history, and the call carries it, marked, with the prompt
// saying to learn from it first.
func TestACorrectionRunsTheLearnerAtOnce(t *testing.T) {
	s := newSetup(t, answerJSON(t, proposals{Memories: []candidate{{Kind: "command", Text: "This project uses pnpm, not npm: install with pnpm install."}}}), nil)
	s.c.turn("add lodash", "I ran npm install lodash.")
	if s.after(t); s.model.calls() != 0 {
		t.Fatal("a plain first turn ran the learner")
	}
	s.c.turn("no, we use pnpm here", "Sorry, I ran pnpm add lodash instead.")
	notices := s.after(t)
	if s.model.calls() != 1 {
		t.Fatalf("%d learning calls after the correction, want 1", s.model.calls())
	}
	prompt, system := s.model.prompts[0], s.model.systems[0]
	if !strings.Contains(prompt, correctionMark+": no, we use pnpm here") {
		t.Errorf("the correction is not marked in the call:\n%s", prompt)
	}
	if !strings.Contains(system, "strongest signal") || !strings.Contains(system, "correction") {
		t.Errorf("the prompt does not rank corrections first:\n%s", system)
	}
	if len(notices) != 1 || notices[0] != "auto-memory: remembered (command) This project uses pnpm, not npm: install with pnpm install." {
		t.Fatalf("notices = %q", notices)
	}
	data, err := os.ReadFile(s.memPath)
	if err != nil || !strings.Contains(string(data), "uses pnpm") {
		t.Fatalf("memory file: %s, %v", data, err)
	}
	// The same correction does not run it again: a command between turns
	// (nothing new in the history) ends no run.
	if s.after(t); s.model.calls() != 1 {
		t.Fatal("the learner ran again on a correction it had learned from")
	}
}

func TestIsCorrection(t *testing.T) {
	for text, want := range map[string]bool{
		"no, we use pnpm here":                  true,
		"No. Tests live in ./spec":              true,
		"actually the config is in etc/":        true,
		"don't edit generated files":            true,
		"please use yarn instead of npm":        true,
		"I told you to run make first":          true,
		"add a test for the parser":             false,
		"notice the failing build and fix it":   false,
		"now run the benchmarks":                false,
		"what does the nothing package do?":     false,
		"know what, let's rename it to Decoder": false,
		"no problem, thanks!":                   false,
		"never mind, let's move on":             false,
		"never commit the build folder":         true,
	} {
		if got := isCorrection(text); got != want {
			t.Errorf("isCorrection(%q) = %v, want %v", text, got, want)
		}
	}
}

// One memory per run, whatever the answer proposes; a proposal holding a
// credential is never kept, nor one the workspace's redactor changes.
func TestOneMemoryPerRunAndNoSecrets(t *testing.T) {
	ans := answerJSON(t, proposals{Memories: []candidate{
		{Kind: "fact", Text: "The deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123"},
		{Kind: "fact", Text: "The staging database password lives in .env as hunter2hunter2"},
		{Kind: "gotcha", Text: "Integration tests need the docker daemon running."},
		{Kind: "fact", Text: "The API is versioned under /v2."},
	}})
	s := newSetup(t, ans, func(c *Config) {
		c.Redact = func(_ context.Context, text string) (string, error) {
			return strings.ReplaceAll(text, "hunter2hunter2", "[secret withheld: .env]"), nil
		}
	})
	s.c.turn("no, run the integration tests with docker up", "ok")
	notices := s.after(t)
	if len(notices) != 1 || !strings.Contains(notices[0], "(gotcha) Integration tests need the docker daemon") {
		t.Fatalf("notices = %q", notices)
	}
	data, err := os.ReadFile(s.memPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, leaked := range []string{"ghp_", "hunter2", "/v2"} {
		if strings.Contains(string(data), leaked) {
			t.Errorf("memory file holds %q:\n%s", leaked, data)
		}
	}
}

// The call carries the conversation through the redactor.
func TestTheCallIsRedacted(t *testing.T) {
	s := newSetup(t, `{}`, func(c *Config) {
		c.Redact = func(_ context.Context, text string) (string, error) {
			return strings.ReplaceAll(text, "s3cr3t-value-42", "[secret withheld: .env]"), nil
		}
	})
	s.c.turn("no, the key is s3cr3t-value-42", "noted")
	s.after(t)
	if s.model.calls() != 1 || strings.Contains(s.model.prompts[0], "s3cr3t-value-42") || !strings.Contains(s.model.prompts[0], "[secret withheld: .env]") {
		t.Fatalf("the learning call carried the secret or no call was made: %q", s.model.prompts)
	}
}

// When the model proposes nothing, nothing is written: no memory file,
// no skill folder, no notice.
func TestNothingProposedWritesNothing(t *testing.T) {
	s := newSetup(t, `{"memories": [], "skills": []}`, nil)
	s.c.turn("no, use tabs", "ok")
	if notices := s.after(t); len(notices) != 0 || s.model.calls() != 1 {
		t.Fatalf("notices %q, %d calls", notices, s.model.calls())
	}
	for _, p := range []string{s.memPath, s.skillsDir} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (err %v)", p, err)
		}
	}
}

// Past 80% of a spend ceiling the learner makes no call.
func TestNoLearningPastEightyPercentOfACeiling(t *testing.T) {
	share := 0.79
	s := newSetup(t, `{}`, func(c *Config) { c.CeilingShare = func() float64 { return share } })
	s.c.turn("no, use tabs", "ok")
	s.after(t)
	if s.model.calls() != 1 {
		t.Fatalf("%d calls under the ceiling, want 1", s.model.calls())
	}
	share = 0.8
	s.c.turn("no, use spaces after all", "ok")
	s.after(t)
	if s.model.calls() != 1 {
		t.Fatalf("%d calls at 80%% of the ceiling, want still 1", s.model.calls())
	}
}

// In an attended session Ended returns at once while the call runs in
// the background; the notice comes through Notify; Close cancels a run in
// flight and waits for it.
func TestBackgroundRunNeverHoldsTheTurnAndStopsOnClose(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var calls int
	notified := make(chan string, 4)
	c := &convo{}
	mem, err := memory.Open(filepath.Join(t.TempDir(), "m.json"), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := New(t.Context(), Config{
		History: c.history, Memory: mem,
		Complete: func(ctx context.Context, _, _ string) (string, error) {
			calls++
			started <- struct{}{}
			select {
			case <-release:
				return `{"memories": [{"kind": "decision", "text": "Errors are wrapped with %w and context."}]}`, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		},
		Notify: func(text string) { notified <- text },
	})
	c.turn("no, wrap errors with context", "ok")
	if notices := l.Ended(t.Context(), agent.TurnEnd{}).Notices; notices != nil {
		t.Fatalf("a background run returned notices %q", notices)
	}
	<-started // running, and Ended has returned
	// A turn that ends meanwhile starts no second run.
	c.turn("no, and use errors.Join", "ok")
	l.Ended(t.Context(), agent.TurnEnd{})
	close(release)
	if got := <-notified; got != "auto-memory: remembered (decision) Errors are wrapped with %w and context." {
		t.Fatalf("notice %q", got)
	}
	l.Wait()
	if calls != 1 {
		t.Fatalf("%d calls, want 1", calls)
	}

	// Close cuts a run in flight off: the call sees its context end.
	c.turn("no, use fmt.Errorf", "ok")
	l.Ended(t.Context(), agent.TurnEnd{})
	<-started
	l.Close()
	select {
	case n := <-notified:
		t.Fatalf("a cancelled run notified %q", n)
	default:
	}
	if len(mem.Entries()) != 1 {
		t.Fatalf("memory has %d entries, want the first run's only", len(mem.Entries()))
	}
	c.turn("no, never mind", "ok")
	if l.Ended(t.Context(), agent.TurnEnd{}); calls != 2 {
		t.Fatalf("a closed learner started a run (%d calls)", calls)
	}
}

// A failed call is said once, with the way to turn learning off.
func TestAFailureIsAnnouncedOnce(t *testing.T) {
	c := &convo{}
	l := New(t.Context(), Config{History: c.history, SkillsDir: t.TempDir(), Inline: true,
		Complete: func(context.Context, string, string) (string, error) { return "", context.DeadlineExceeded }})
	t.Cleanup(l.Close)
	c.turn("no, use make", "ok")
	first := l.Ended(t.Context(), agent.TurnEnd{}).Notices
	c.turn("no, use just", "ok")
	second := l.Ended(t.Context(), agent.TurnEnd{}).Notices
	if len(first) != 1 || !strings.Contains(first[0], `"autoLearn": false`) || len(second) != 0 {
		t.Fatalf("first %q, second %q", first, second)
	}
}

// A resumed conversation counts as learned from: a short `-c -p` run on a
// long session learns nothing from the old turns, but a correction in it
// is still learned at once.
func TestAResumedHistoryIsNotLearnedAgain(t *testing.T) {
	c := &convo{}
	for range 6 {
		c.turn("look at the parser", "looked")
	}
	resumed := len(c.msgs)
	s := newSetup(t, `{}`, func(cfg *Config) { cfg.Resumed = resumed; cfg.History = c.history })
	c.turn("and the lexer", "looked")
	if s.after(t); s.model.calls() != 0 {
		t.Fatal("the learner ran on a resumed session's old turns")
	}
	c.turn("no, the lexer lives in scan/", "ok")
	if s.after(t); s.model.calls() != 1 {
		t.Fatal("a correction in a resumed session was not learned")
	}
}
