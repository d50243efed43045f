package agent_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tool"
)

// holdingBox is a sandbox that holds every protection, with the workspace
// /w writable; brokenBox one that does not hold.
type holdingBox struct{ holds bool }

func (b holdingBox) Holds() (bool, string)  { return b.holds, "private mounts failed" }
func (b holdingBox) Writable(p string) bool { return strings.HasPrefix(p, "/w/") }
func (holdingBox) Workspace() string        { return "/w" }
func (holdingBox) Home() string             { return "/home/u" }

func explainLine(t *testing.T, g *agent.Gate, line string) agent.Explanation {
	t.Helper()
	bt := (&fakeTool{name: "bash", effect: tool.Runs}).build()
	return g.Explain(t.Context(), bt, "x", prepare(t, bt, `{"command":`+quote(line)+`}`))
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func TestOnRequestRunsContainedCommandsWithoutAsking(t *testing.T) {
	g := &agent.Gate{Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: true}}
	for _, line := range []string{"ls", "git status", "go test ./...", "npm test", "cat go.mod"} {
		if e := explainLine(t, g, line); e.Decision != "allow" || !strings.Contains(e.Reason, "inside the sandbox") {
			t.Errorf("%s: %+v", line, e)
		}
	}
	for _, line := range []string{"curl http://127.0.0.1:9", "git push", "npm install", "echo x > /etc/motd"} {
		if e := explainLine(t, g, line); e.Decision != "ask" {
			t.Errorf("%s leaves the sandbox but was %s", line, e.Decision)
		}
	}
}

func TestWithoutAHoldingSandboxEveryCommandAsks(t *testing.T) {
	for name, g := range map[string]*agent.Gate{
		"partial":   {Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: false}},
		"none":      {Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil)},
		"untrusted": {Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: true}, Approval: permission.Untrusted},
	} {
		if e := explainLine(t, g, "ls"); e.Decision != "ask" {
			t.Errorf("%s: ls was %s", name, e.Decision)
		}
	}
}

func TestYourAskAndDenyRulesWinOverTheSandbox(t *testing.T) {
	user, err := permission.Parse([]byte(`{"bash": {"*": "ask", "rm *": "deny"}}`))
	if err != nil {
		t.Fatal(err)
	}
	g := &agent.Gate{Plugins: plugin.NewHost(), Rules: permission.NewPolicy(user, nil), Box: holdingBox{holds: true}}
	if e := explainLine(t, g, "ls"); e.Decision != "ask" {
		t.Errorf("ls under your \"*\": ask was %s", e.Decision)
	}
	if e := explainLine(t, g, "rm x"); e.Decision != "deny" {
		t.Errorf("rm under your deny was %s", e.Decision)
	}
	project, err := permission.Parse([]byte(`{"bash": {"git *": "ask"}}`))
	if err != nil {
		t.Fatal(err)
	}
	g.Rules = permission.NewPolicy(nil, project)
	if e := explainLine(t, g, "git status"); e.Decision != "ask" {
		t.Errorf("git status under the project's ask was %s", e.Decision)
	}
	if e := explainLine(t, g, "ls"); e.Decision != "allow" {
		t.Errorf("ls, which the project does not name, was %s", e.Decision)
	}
}

func TestNeverRefusesWhatWouldAskAndRunsWhatIsContained(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	g := &agent.Gate{Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: true}, Approval: permission.Never}
	h := newHarness(t, options{gate: g, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"curl http://127.0.0.1:9"}`), toolCall("c2", "bash", `{"command":"ls"}`)),
		resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	if d := denied(t, evs); d.ID != "c1" || d.By != "policy" || !strings.Contains(d.Reason, "approval policy is never") {
		t.Fatalf("denied = %+v", d)
	}
	if len(h.answers.seen()) != 0 {
		t.Fatal("never asked the person")
	}
	if bash.runs.Load() != 1 {
		t.Fatalf("runs = %d, want only ls", bash.runs.Load())
	}
}

// A command that asks only because it would leave the sandbox says how.
func TestTheAskSaysHowTheCommandWouldLeaveTheSandbox(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	g := &agent.Gate{Plugins: plugin.NewHost(), Rules: permission.NewPolicy(nil, nil), Box: holdingBox{holds: true}}
	h := newHarness(t, options{gate: g, attended: true}, []*fakeTool{bash},
		resp(toolCall("c1", "bash", `{"command":"git push origin main"}`)), resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	reqs := h.answers.seen()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Leaves, `"git push origin main" reaches the network`) {
		t.Fatalf("requests = %+v", reqs)
	}
}
