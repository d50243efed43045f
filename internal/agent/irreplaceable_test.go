package agent_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tool"
)

// pastCaps is a workspace whose checkpoints leave out the files named.
type pastCaps []string

func (p pastCaps) PastCaps(context.Context) []string { return p }

// With someone there, a command that may destroy a file past the caps is
// asked about, naming it, even where the sandbox would have run it
// without asking; commands that cannot reach it run as before.
func TestACommandThatMayDestroyAFilePastTheCapsIsAsked(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	g := &agent.Gate{Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: true},
		Irreplaceable: pastCaps{"data/big.db"}, Cwd: "/w"}
	h := newHarness(t, options{gate: g, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"ls data"}`), toolCall("c2", "bash", `{"command":"rm data/big.db"}`),
			toolCall("c3", "bash", `{"command":"python3 cleanup.py"}`), toolCall("c4", "bash", `{"command":"rm data/other.db"}`)),
		resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	reqs := h.answers.seen()
	if len(reqs) != 2 {
		t.Fatalf("asked %d times, want 2 (rm of the file, the python program): %+v", len(reqs), reqs)
	}
	for i, id := range []string{"c2", "c3"} {
		if reqs[i].CallID != id || !strings.Contains(reqs[i].Leaves, "may destroy data/big.db, which /undo could not bring back") {
			t.Errorf("request %d = %+v", i, reqs[i])
		}
	}
}

// countedCaps counts how often the files past the caps are listed: the
// first listing takes the session's first snapshot.
type countedCaps struct{ n atomic.Int32 }

func (c *countedCaps) PastCaps(context.Context) []string {
	c.n.Add(1)
	return []string{"data/big.db"}
}

// An inert call (a bash line run in-process) destroys nothing: the gate
// does not list the files past the caps for it, nor ask about them.
func TestAnInertCallDoesNotListTheFilesPastTheCaps(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs, inert: true}
	caps := &countedCaps{}
	g := &agent.Gate{Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: true},
		Irreplaceable: caps, Cwd: "/w"}
	h := newHarness(t, options{gate: g, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"true"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	if n := caps.n.Load(); n != 0 || len(h.answers.seen()) != 0 || bash.runs.Load() != 1 {
		t.Errorf("past caps listed %d times, %d questions, %d runs; want 0, 0, 1", n, len(h.answers.seen()), bash.runs.Load())
	}
}
