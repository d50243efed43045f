package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// journal is a recorder (the Recorded hook) that writes what it is told
// into a log shared with the provider, so a test sees the order of steps
// and requests. charges has it keep the Charged usage too.
type journal struct {
	agent.NoHooks
	mu      sync.Mutex
	log     []string
	fail    error
	charges bool
}

func (j *journal) add(line string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.log = append(j.log, line)
}

func (j *journal) lines() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.log...)
}

func (j *journal) Recorded(_ context.Context, r agent.Record) error {
	j.mu.Lock()
	fail, charges := j.fail, j.charges
	j.mu.Unlock()
	switch r := r.(type) {
	case agent.Step:
		if fail != nil {
			return fail
		}
		line := fmt.Sprintf("append %s %s %s", r.SessionID, r.Message.Role, describe(r.Message))
		if r.CallModel != "" || r.Usage != (llm.Usage{}) {
			line += fmt.Sprintf(" [%s %d/%d]", r.CallModel, r.Usage.InputTokens, r.Usage.OutputTokens)
		}
		j.add(line)
	case agent.Replaced:
		j.add(fmt.Sprintf("replace %s %d", r.SessionID, len(r.History)))
	case agent.Compacted:
		c := r.Compaction
		j.add(fmt.Sprintf("compact %s %d into %d [%s %d/%d]", r.SessionID, c.Summarized, len(c.History), c.Model, c.Usage.InputTokens, c.Usage.OutputTokens))
	case agent.Charged:
		if charges {
			j.add(fmt.Sprintf("charged %s %s %d/%d", r.SessionID, r.CallModel, r.Usage.InputTokens, r.Usage.OutputTokens))
		}
	}
	return nil
}

// describe is a message in one short line: its text and calls/results.
func describe(m llm.Message) string {
	var parts []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llm.Text:
			parts = append(parts, fmt.Sprintf("%q", p.Text))
		case llm.ToolCall:
			parts = append(parts, "call:"+p.ID)
		case llm.ToolResult:
			r := "result:" + p.CallID
			if p.Output == agentInterrupted {
				r += "(interrupted)"
			}
			parts = append(parts, r)
		}
	}
	return strings.Join(parts, ",")
}

// agentInterrupted is the text of a synthetic result for a call that never
// finished, as the agent writes it.
const agentInterrupted = "The user interrupted before this tool call finished. Its effects, if any, are unknown."

// journaled is a provider that notes each request in the journal.
type journaled struct {
	j    *journal
	wire *recorder
}

func (p *journaled) Name() string { return "journaled" }

func (p *journaled) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	p.j.add(fmt.Sprintf("request %s %d messages", req.SessionID, len(req.Messages)))
	return p.wire.Stream(ctx, req)
}

// startRecorded starts a session over the echo tool with a journal.
func startRecorded(t *testing.T, history []llm.Message, responses ...replay.Response) (*agent.Owner, *journal, *recorder) {
	t.Helper()
	echo := (&fakeTool{name: "echo"}).build()
	reg, err := tool.NewRegistry(echo)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{}
	wire := &recorder{inner: replay.New("test", responses)}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: &journaled{j: j, wire: wire}, Model: "m1", SessionID: "s1", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{stable: "sys"}, Filter: tool.Filter{Sets: tool.DefaultSets()},
		Hooks: j, History: history,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Interrupt{})
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return s, j, wire
}

// drain reads events until the first done event (or the stream's end).
func drainTurn(s *agent.Owner) []protocol.Event {
	var out []protocol.Event
	for e := range s.Events() {
		out = append(out, e)
		if _, ok := e.(protocol.DoneEvent); ok {
			break
		}
	}
	return out
}

func TestEveryStepIsRecordedBeforeTheNextRequest(t *testing.T) {
	s, j, _ := startRecorded(t, nil,
		resp(llm.TextDelta{Text: "looking"}, toolCall("c1", "echo", `{}`)),
		resp(llm.TextDelta{Text: "done"}),
	)
	for range s.Send(t.Context(), "hi") {
	}
	want := []string{
		`append s1 user "hi"`,
		`request s1 1 messages`,
		`append s1 assistant "looking",call:c1 [m1 10/5]`,
		`append s1 tool result:c1`,
		`request s1 3 messages`,
		`append s1 assistant "done" [m1 10/5]`,
	}
	if got := j.lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("journal:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAnInterruptedTurnRecordsItsSyntheticResults(t *testing.T) {
	echo := (&fakeTool{name: "echo"}).build()
	reg, _ := tool.NewRegistry(echo)
	j := &journal{}
	p := &cancellingProvider{}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: p, Model: "m1", SessionID: "s1", Cwd: t.TempDir(), Tools: reg, Gate: &agent.Gate{Rules: allowAll()},
		Prompter: staticPrompter{}, Filter: tool.Filter{Sets: tool.DefaultSets()}, Hooks: j,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.cancel = func() { _, _ = s.Submit(protocol.Interrupt{}) }
	for range s.Send(t.Context(), "go") {
	}
	got := strings.Join(j.lines(), "\n")
	if !strings.HasSuffix(got, "append s1 assistant call:c1\nappend s1 tool result:c1(interrupted)") {
		t.Fatalf("journal:\n%s", got)
	}
}

func TestValidHistoryAnswersEveryCall(t *testing.T) {
	call := func(id string) llm.Part { return llm.ToolCall{ID: id, Name: "echo", Input: json.RawMessage(`{}`)} }
	result := func(id string) llm.Part { return llm.ToolResult{CallID: id, Name: "echo", Output: "ok"} }
	h := []llm.Message{
		llm.UserText("one"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{call("a"), call("b")}},
		{Role: llm.RoleTool, Parts: []llm.Part{result("b"), result("stray")}}, // a's result is missing
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "x"}, call("c")}},
		llm.UserText("two"), // the process died while c ran; the person went on
		{Role: llm.RoleTool, Parts: []llm.Part{result("zz")}},   // answers nothing
		{Role: llm.RoleAssistant, Parts: []llm.Part{call("d")}}, // killed while d ran
	}
	before := fmt.Sprint(h)
	got := agent.ValidHistory(h)
	var lines []string
	for _, m := range got {
		lines = append(lines, string(m.Role)+" "+describe(m))
	}
	want := []string{
		`user "one"`,
		`assistant call:a,call:b`,
		`tool result:a(interrupted),result:b`,
		`assistant "x",call:c`,
		`tool result:c(interrupted)`,
		`user "two"`,
		`assistant call:d`,
		`tool result:d(interrupted)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("valid history:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if fmt.Sprint(h) != before {
		t.Fatal("ValidHistory changed its input")
	}
	if len(agent.ValidHistory(nil)) != 0 {
		t.Fatal("an empty history grew")
	}
}

func TestAStartedHistoryIsDrawnAndSentValid(t *testing.T) {
	stored := []llm.Message{
		llm.UserText("read it"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "reading"}, llm.ToolCall{ID: "c1", Name: "echo", Input: json.RawMessage(`{"command":"cat notes"}`)}}},
	}
	s, j, wire := startRecorded(t, stored, resp(llm.TextDelta{Text: "carried on"}))
	var hist protocol.HistoryEvent
	var order []string
	for e := range s.Events() {
		order = append(order, protocol.TypeOf(e))
		if h, ok := e.(protocol.HistoryEvent); ok {
			hist = h
			break
		}
	}
	if strings.Join(order, ",") != "session,history" {
		t.Fatalf("events before the history: %v", order)
	}
	want := protocol.HistoryEvent{Messages: []protocol.HistoryMessage{
		{Role: protocol.HistoryUser, Text: "read it"},
		{Role: protocol.HistoryAssistant, Text: "reading", Calls: []protocol.HistoryCall{{
			ID: "c1", Name: "echo", Input: json.RawMessage(`{"command":"cat notes"}`), Title: "cat notes", Kind: protocol.KindOther,
			Output: agentInterrupted, IsError: true,
		}}},
	}}
	gotJSON, _ := protocol.Marshal(hist)
	wantJSON, _ := protocol.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("history event\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if _, err := s.Submit(protocol.UserTurn{Text: "go on"}); err != nil {
		t.Fatal(err)
	}
	drainTurn(s)
	reqs := wire.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var roles []string
	for _, m := range reqs[0].Messages {
		roles = append(roles, string(m.Role)+" "+describe(m))
	}
	if got := strings.Join(roles, "\n"); got != "user \"read it\"\nassistant \"reading\",call:c1\ntool result:c1(interrupted)\nuser \"go on\"" {
		t.Fatalf("request:\n%s", got)
	}
	// Only the new steps are recorded: the stored ones are there already.
	if got := j.lines(); !strings.HasPrefix(got[0], `append s1 user "go on"`) {
		t.Fatalf("journal %q", got)
	}
}

func TestResumeSwitchesTheConversation(t *testing.T) {
	s, j, wire := startRecorded(t, nil, resp(llm.TextDelta{Text: "ok"}))
	if err := s.Resume("s2", []llm.Message{llm.UserText("earlier"), {Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "yes"}}}}); err != nil {
		t.Fatal(err)
	}
	if s.ID() != "s2" {
		t.Fatalf("id %q", s.ID())
	}
	var sawSession, sawHistory bool
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.SessionEvent:
			sawSession = sawSession || e.SessionID == "s2"
		case protocol.HistoryEvent:
			sawHistory = len(e.Messages) == 2
		}
		if sawHistory {
			break
		}
	}
	if !sawSession || !sawHistory {
		t.Fatalf("session event for s2: %v, history event: %v", sawSession, sawHistory)
	}
	_, _ = s.Submit(protocol.UserTurn{Text: "now"})
	drainTurn(s)
	if r := wire.requests(); len(r) != 1 || r[0].SessionID != "s2" || len(r[0].Messages) != 3 {
		t.Fatalf("request %+v", r)
	}
	if got := j.lines(); got[0] != `append s2 user "now"` {
		t.Fatalf("journal %q", got)
	}
	if err := s.Resume("", nil); err == nil {
		t.Fatal("resume without an id")
	}
}

func TestAReplaceChangeIsRecordedAsAReplacement(t *testing.T) {
	j := &journal{}
	reg, _ := tool.NewRegistry()
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("test", nil), Model: "m1", SessionID: "s1", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{}, Hooks: j, Commands: clearer{},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.Submit(protocol.Command{Line: "/clear"})
	_, _ = s.Submit(protocol.Shutdown{})
	for range s.Events() {
	}
	if got := j.lines(); len(got) != 1 || got[0] != "replace s1 0" {
		t.Fatalf("journal %q", got)
	}
}

func TestARecorderFailureIsToldOnce(t *testing.T) {
	s, j, _ := startRecorded(t, nil,
		resp(llm.TextDelta{Text: "a"}), resp(llm.TextDelta{Text: "b"}))
	j.fail = errors.New("disk full")
	notices := 0
	var texts []string
	for _, prompt := range []string{"one", "two"} {
		_, _ = s.Submit(protocol.UserTurn{Text: prompt})
		for _, e := range drainTurn(s) {
			if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, "could not be saved") {
				notices++
				texts = append(texts, n.Text)
			}
			if t, ok := e.(protocol.TextEvent); ok {
				texts = append(texts, t.Text)
			}
		}
	}
	if notices != 1 || !strings.Contains(texts[0], "disk full") {
		t.Fatalf("%d notices: %q", notices, texts)
	}
	if len(s.History()) != 4 {
		t.Fatalf("the conversation did not go on in memory: %d messages", len(s.History()))
	}
}

// slowShow is a commander whose one command only shows something, and
// waits until released.
type slowShow struct{ release chan struct{} }

func (c slowShow) List() []protocol.CommandInfo {
	return []protocol.CommandInfo{{Name: "cost", Immediate: true}}
}
func (c slowShow) Immediate(string) bool { return true }
func (c slowShow) Run(ctx context.Context, _ string) (agent.CommandOutcome, error) {
	<-c.release
	return agent.CommandOutcome{Output: "0 tokens"}, nil
}

// A command that shows something runs beside the queue; a shutdown that
// comes while it runs (a headless `-p /cost`, a stream-json client that
// sends a command and closes stdin) must still deliver its result before
// the stream closes.
func TestShutdownWaitsForARunningCommand(t *testing.T) {
	reg, _ := tool.NewRegistry()
	cmd := slowShow{release: make(chan struct{})}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", nil), Model: "m", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{}, Commands: cmd,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(protocol.Command{Line: "/cost"}); err != nil {
		t.Fatal(err)
	}
	_, _ = s.Submit(protocol.Shutdown{})
	if _, err := s.Submit(protocol.Command{Line: "/cost"}); !errors.Is(err, agent.ErrClosed) {
		t.Fatalf("a command after shutdown: %v", err)
	}
	close(cmd.release)
	var got []string
	for e := range s.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok {
			got = append(got, r.Output)
		}
	}
	if len(got) != 1 || got[0] != "0 tokens" {
		t.Fatalf("command results before the stream closed: %q", got)
	}
}
