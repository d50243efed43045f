package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// countingCommands answers the n-th run of any line with "run n", so two
// runs of the same line give different answers.
type countingCommands struct {
	mu sync.Mutex
	n  int
	// prompt, when set, is every outcome's prompt: a turn follows.
	prompt string
}

func (c *countingCommands) List() []protocol.CommandInfo {
	return []protocol.CommandInfo{{Name: "files"}}
}
func (c *countingCommands) Immediate(string) bool { return false }
func (c *countingCommands) Run(context.Context, string) (agent.CommandOutcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return agent.CommandOutcome{Output: fmt.Sprintf("run %d", c.n), Prompt: c.prompt}, nil
}

// Two commands with the same line, submitted back to back, are told apart
// by the ids Submit returned: each result carries its own op's id, not
// the text both share.
func TestSameCommandTwiceAnswersEachByID(t *testing.T) {
	reg, _ := tool.NewRegistry()
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", nil), Model: "m", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{}, Commands: &countingCommands{},
	})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Submit(protocol.Command{Line: "/files src"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Submit(protocol.Command{Line: "/files src"})
	if err != nil {
		t.Fatal(err)
	}
	if first == "" || first == second {
		t.Fatalf("ids %q and %q: want two different ids", first, second)
	}
	_, _ = s.Submit(protocol.Shutdown{})
	got := map[string]string{}
	for e := range s.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok {
			got[r.Op] = r.Output
		}
	}
	if got[first] != "run 1" || got[second] != "run 2" || len(got) != 2 {
		t.Fatalf("results by op id = %v; want %s: run 1, %s: run 2", got, first, second)
	}
}

// A turn carries the id of the op that queued it from start to done, and
// so does the turn a command's prompt runs: a client waiting for either
// knows which done is its own.
func TestTurnEventsCarryTheirOpsID(t *testing.T) {
	reg, _ := tool.NewRegistry()
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", []replay.Response{resp(llm.TextDelta{Text: "a"}), resp(llm.TextDelta{Text: "b"})}),
		Model:    "m", Cwd: t.TempDir(), Tools: reg, Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{},
		Commands: &countingCommands{prompt: "review it"},
	})
	if err != nil {
		t.Fatal(err)
	}
	turn, _ := s.Submit(protocol.UserTurn{Text: "hello"})
	command, _ := s.Submit(protocol.Command{Line: "/review"})
	_, _ = s.Submit(protocol.Shutdown{})
	var starts, dones []string
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.TurnStartEvent:
			starts = append(starts, e.Op+" "+e.Text)
		case protocol.DoneEvent:
			dones = append(dones, e.Op)
		}
	}
	wantStarts := []string{turn + " hello", command + " review it"}
	if fmt.Sprint(starts) != fmt.Sprint(wantStarts) || fmt.Sprint(dones) != fmt.Sprint([]string{turn, command}) {
		t.Fatalf("starts %q dones %q; want %q and [%s %s]", starts, dones, wantStarts, turn, command)
	}
}

// A history pruned for the wire during a turn is reported with the id of
// the op whose turn pruned it: here the third, once the big output is
// older than the last messages pruning keeps.
func TestPruningInATurnCarriesItsOpsID(t *testing.T) {
	big := strings.Repeat("a line of a large file\n", 2000)
	read := &fakeTool{name: "read", run: func(context.Context, tool.Runtime, *fakeIn) (string, error) { return big, nil }}
	reg, _ := tool.NewRegistry(read.build())
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", []replay.Response{resp(toolCall("c1", "read", `{}`)), resp(llm.TextDelta{Text: "read it"}), resp(llm.TextDelta{Text: "yes"}), resp(llm.TextDelta{Text: "done"})}),
		Model:    "m", Cwd: t.TempDir(), Tools: reg, Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{},
		Filter: tool.Filter{Sets: tool.DefaultSets()}, PruneTokens: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.Submit(protocol.UserTurn{Text: "read the file"})
	_, _ = s.Submit(protocol.UserTurn{Text: "anything else?"})
	third, _ := s.Submit(protocol.UserTurn{Text: "and now?"})
	_, _ = s.Submit(protocol.Shutdown{})
	var ops []string
	for e := range s.Events() {
		if c, ok := e.(protocol.CompactedEvent); ok {
			ops = append(ops, c.Op)
		}
	}
	if fmt.Sprint(ops) != fmt.Sprint([]string{third}) {
		t.Fatalf("compacted events with ops %q; want one, of the third turn (%s)", ops, third)
	}
}
