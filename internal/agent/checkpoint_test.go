package agent_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// checkpoints logs what the session asked of its checkpointer (the
// BeforeChange and Ended hooks), and when: the tool runs log themselves
// into the same list.
type checkpoints struct {
	agent.NoHooks
	mu  sync.Mutex
	log []string
}

func (c *checkpoints) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, s)
}

func (c *checkpoints) BeforeChange(_ context.Context, id string) []string {
	c.add("before " + id)
	return []string{"snapshot taken"}
}

func (c *checkpoints) Ended(_ context.Context, t agent.TurnEnd) agent.Ending {
	c.add(fmt.Sprintf("end %s turn %d %q history %d commands %v", t.SessionID, t.Seq, t.Typed, t.HistoryLen, t.RanCommands))
	return agent.Ending{}
}

// The snapshot before a change is taken once, right before the turn's
// first call that may change something (not before reads), and every
// turn is reported when it ends with where its conversation began.
func TestCheckpointsAtTheTurnsEdges(t *testing.T) {
	cp := &checkpoints{}
	logRun := func(name string) func(context.Context, tool.Runtime, *fakeIn) (string, error) {
		return func(context.Context, tool.Runtime, *fakeIn) (string, error) {
			cp.add("run " + name)
			return "ok", nil
		}
	}
	read := &fakeTool{name: "look", run: logRun("look")}
	write := &fakeTool{name: "change", effect: tool.Writes, run: logRun("change")}
	shell := &fakeTool{name: "shell", effect: tool.Runs, run: logRun("shell")}
	s := startCheckpointed(t, cp, []*fakeTool{read, write, shell},
		resp(llm.TextDelta{Text: "hello"}),
		resp(toolCall("c1", "look", `{}`), toolCall("c2", "change", `{"path":"a"}`), toolCall("c3", "shell", `{"command":"true"}`)),
		resp(toolCall("c4", "change", `{"path":"b"}`)),
		resp(llm.TextDelta{Text: "done"}))
	for range s.Send(t.Context(), "hi") {
	}
	var notices []string
	for e := range s.Send(t.Context(), "do it") {
		if n, ok := e.(protocol.NoticeEvent); ok {
			notices = append(notices, n.Text)
		}
	}
	want := []string{
		`end s1 turn 1 "hi" history 0 commands false`,
		"run look",
		"before s1",
		"run change",
		"run shell",
		"run change",
		`end s1 turn 2 "do it" history 2 commands true`,
	}
	if !slices.Equal(cp.log, want) {
		t.Fatalf("checkpoint calls:\n%q\nwant:\n%q", cp.log, want)
	}
	if !slices.Equal(notices, []string{"snapshot taken"}) {
		t.Fatalf("notices: %q", notices)
	}
}

// A call whose plan is inert (a bash line run in-process, which starts no
// program and changes nothing) takes no snapshot before it, and its turn
// does not count as one that ran commands, so no snapshot after it either.
func TestAnInertCallTakesNoCheckpoint(t *testing.T) {
	cp := &checkpoints{}
	shell := &fakeTool{name: "shell", effect: tool.Runs, inert: true, run: func(context.Context, tool.Runtime, *fakeIn) (string, error) {
		cp.add("run shell")
		return "exit: 0", nil
	}}
	s := startCheckpointed(t, cp, []*fakeTool{shell}, resp(toolCall("c1", "shell", `{"command":"true"}`)), resp(llm.TextDelta{Text: "done"}))
	for range s.Send(t.Context(), "go") {
	}
	want := []string{"run shell", `end s1 turn 1 "go" history 0 commands false`}
	if !slices.Equal(cp.log, want) {
		t.Fatalf("checkpoint calls:\n%q\nwant:\n%q", cp.log, want)
	}
}

// startCheckpointed starts session s1 with tools, the replies scripted
// and cp as its hooks, shut down when the test ends.
func startCheckpointed(t *testing.T, cp *checkpoints, tools []*fakeTool, replies ...replay.Response) *agent.Owner {
	t.Helper()
	var built []tool.Tool
	for _, f := range tools {
		built = append(built, f.build())
	}
	reg, err := tool.NewRegistry(built...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("test", replies),
		Model:    "m", SessionID: "s1", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Rules: allowAll(), Plugins: plugin.NewHost()}, Prompter: staticPrompter{stable: "p"},
		Filter: tool.Filter{Sets: tool.DefaultSets()}, Hooks: cp,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return s
}
