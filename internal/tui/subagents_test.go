package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
)

// routedProvider plays a script per conversation, chosen by the
// conversation's first user message, so the main session and each
// subagent (which run at once, on one provider) get their own answers in
// a fixed order. A gate part pauses a response until the test releases
// it. It keeps every request it was sent.
type routedProvider struct {
	mu       sync.Mutex
	scripts  map[string][][]llm.StreamPart
	requests []*llm.Request
	release  chan struct{}
}

func newRoutedProvider(scripts map[string][][]llm.StreamPart) *routedProvider {
	return &routedProvider{scripts: scripts, release: make(chan struct{}, 16)}
}

func (p *routedProvider) Name() string { return "routed" }

func (p *routedProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		key := ""
		if len(req.Messages) > 0 {
			key = req.Messages[0].PlainText()
		}
		p.mu.Lock()
		p.requests = append(p.requests, req)
		script := p.scripts[key]
		if len(script) == 0 {
			p.mu.Unlock()
			yield(nil, fmt.Errorf("routed provider: no response left for %q", key))
			return
		}
		resp := script[0]
		p.scripts[key] = script[1:]
		p.mu.Unlock()
		for _, part := range resp {
			if _, ok := part.(gate); ok {
				select {
				case <-p.release:
				case <-ctx.Done():
					yield(nil, ctx.Err())
					return
				}
				continue
			}
			if !yield(part, nil) {
				return
			}
		}
	}
}

// systemPrompts returns the system prompt of every request so far.
func (p *routedProvider) systemPrompts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.requests))
	for i, r := range p.requests {
		var b strings.Builder
		for _, s := range r.System {
			b.WriteString(s.Text)
		}
		b.WriteString(r.Tail)
		out[i] = b.String()
	}
	return out
}

func call(id, name string, input any) llm.StreamPart {
	b, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return llm.ToolCallDone{ID: id, Name: name, Input: b}
}

func finish(in, out int) llm.StreamPart {
	return llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: in, OutputTokens: out}}
}

// A batch of explore subagents shows under its task call, one aligned line
// each: the live step of one that still works beside the summary of one
// that has finished; /cost then counts their tokens apart.
func TestSubagentsShowUnderTheirTaskCall(t *testing.T) {
	env := newTestEnv(t)
	if err := os.WriteFile(filepath.Join(env.work, "cache.go"), []byte("package cache\n\nfunc Evict() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const findBrief, testsBrief = "Find where the cache is built.", "Read the cache tests."
	p := newRoutedProvider(map[string][][]llm.StreamPart{
		"look into the cache": {
			{call("t1", "task", map[string]any{"tasks": []map[string]string{
				{"description": "find the cache code", "prompt": findBrief},
				{"description": "read the cache tests", "prompt": testsBrief},
			}}), finish(100, 20)},
			{llm.TextDelta{Text: "Both reports are in."}, finish(200, 10)},
		},
		findBrief: {
			{call("a1", "glob", map[string]string{"pattern": "**/*.go"}), finish(30, 5)},
			{llm.TextDelta{Text: "The cache is built in cache.go:1."}, finish(40, 6)},
		},
		testsBrief: {
			{call("b1", "grep", map[string]string{"pattern": "Evict"}), finish(30, 5)},
			{gate{}, llm.TextDelta{Text: "There are no cache tests yet."}, finish(40, 6)},
		},
	})
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), p)
	d := startDriver(t, a, ap, Options{})
	d.submit("look into the cache")

	frame := d.waitText("○ task 2 explore subagents · 1 running",
		"  ⎿ ● explore  find the cache code   finished after 1 tool call",
		"    ○ explore  read the cache tests  grep Evict")
	if strings.Contains(frame, "task find the cache code") {
		t.Errorf("the task line still lists the descriptions once its subagents show:\n%s", frame)
	}
	p.release <- struct{}{}
	d.waitIdle()
	d.waitText("● task 2 explore subagents\n",
		"  ⎿ ● explore  find the cache code   finished after 1 tool call",
		"    ● explore  read the cache tests  finished after 1 tool call",
		"    ## find the cache code\n    The cache is built in cache.go:1.",
		"Both reports are in.")

	d.submit("/cost")
	d.waitText("subagents (counted apart from the above):",
		"  replay: prompt tokens 140 (uncached 140, cache write 0, cache read 0); output 22",
		"prompt tokens: 300 (uncached 300, cache write 0, cache read 0); output 30")
}

// A worker's call that needs approval says who asks; y lets it write.
func TestWorkerSubagentApprovalSaysWhoAsks(t *testing.T) {
	env := newTestEnv(t)
	const brief = "Write notes/todo.txt saying: ship it."
	p := newRoutedProvider(map[string][][]llm.StreamPart{
		"note it down": {
			{call("t1", "task", map[string]string{"description": "write the note", "prompt": brief, "kind": "worker"}), finish(10, 5)},
			{llm.TextDelta{Text: "The worker wrote it."}, finish(10, 5)},
		},
		brief: {
			{call("w1", "write_file", map[string]string{"path": "notes/todo.txt", "content": "ship it\n"}), finish(10, 5)},
			{llm.TextDelta{Text: "Wrote notes/todo.txt."}, finish(10, 5)},
		},
	})
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), p)
	d := startDriver(t, a, ap, Options{})
	d.submit("note it down")
	d.waitText("a worker subagent wants to run write_file", "+ship it",
		"○ task 1 worker subagent · 1 running", "○ worker  write the note  write_file notes/todo.txt")
	d.press("y")
	d.waitIdle()
	d.waitText("● worker  write the note  finished after 1 tool call", "The worker wrote it.")
	if got, err := os.ReadFile(filepath.Join(env.work, "notes", "todo.txt")); err != nil || string(got) != "ship it\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
}

// Eight subagents at once stay readable: one line each, in brief order
// whatever order they started in, the step column aligned, nothing wider
// than the screen; a failure says why, and a turn cut off leaves none
// running.
func TestSubagentBatchOfEightStaysReadable(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	var frame string
	d.inspect(func(m *model) {
		m.turn = &turnState{id: 99, cancel: func() {}}
		m.applyEvent(agent.ToolCallEvent{ID: "t", Name: "task", Input: json.RawMessage(`{"tasks":[]}`)})
		for i := 8; i >= 1; i-- {
			m.applyEvent(agent.SubagentEvent{ID: fmt.Sprintf("t.%d", i), CallID: "t", Kind: "explore", Phase: agent.SubagentStart,
				Text: fmt.Sprintf("brief number %d%s", i, strings.Repeat(" with a long tail", i%3))})
		}
		for i := 1; i <= 8; i++ {
			m.applyEvent(agent.SubagentEvent{ID: fmt.Sprintf("t.%d", i), CallID: "t", Kind: "explore", Phase: agent.SubagentStep,
				Text: fmt.Sprintf("grep pattern%d", i)})
		}
		m.applyEvent(agent.SubagentEvent{ID: "t.2", CallID: "t", Kind: "explore", Phase: agent.SubagentResult, Text: "found it"})
		m.applyEvent(agent.SubagentEvent{ID: "t.2", CallID: "t", Kind: "explore", Phase: agent.SubagentEnd, Text: "finished after 3 tool calls"})
		m.applyEvent(agent.SubagentEvent{ID: "t.5", CallID: "t", Kind: "explore", Phase: agent.SubagentError, Text: "the model refused"})
		frame = ansi.Strip(m.frame())
	})
	lines := strings.Split(frame, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "○ task 8 explore subagents · 6 running · 1 failed") {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("no task summary line:\n%s", frame)
	}
	rows := lines[start+1 : start+9]
	stepCol := -1
	for i, row := range rows {
		if ansi.StringWidth(row) > testWidth {
			t.Errorf("row %d is wider than the screen: %q", i+1, row)
		}
		if !strings.Contains(row, fmt.Sprintf("brief number %d", i+1)) {
			t.Errorf("row %d is out of order: %q", i+1, row)
		}
		want := fmt.Sprintf("grep pattern%d", i+1)
		switch i + 1 {
		case 2:
			want = "finished after 3 tool calls"
		case 5:
			want = "failed: the model refused"
		}
		col := strings.Index(row, want)
		if col < 0 {
			t.Errorf("row %d lacks %q: %q", i+1, want, row)
			continue
		}
		col = ansi.StringWidth(row[:col])
		if stepCol < 0 {
			stepCol = col
		} else if col != stepCol {
			t.Errorf("row %d's step starts at column %d, not %d:\n%s", i+1, col, stepCol, strings.Join(rows, "\n"))
		}
	}
	d.inspect(func(m *model) {
		m.applyEvent(agent.DoneEvent{})
		m.turn = nil
		frame = ansi.Strip(m.frame())
	})
	if strings.Contains(frame, "running") || strings.Count(frame, "failed: stopped") != 6 {
		t.Fatalf("subagents of a cut-off turn still run:\n%s", frame)
	}
}
