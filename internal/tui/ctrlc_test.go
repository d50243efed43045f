package tui

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// ctrl-c with nothing running quits.
func TestCtrlCQuitsWhenIdle(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
}

// ctrl-c with a background command running stops the newest one instead
// of quitting; /bash lists it.
func TestCtrlCStopsTheNewestBackgroundCommand(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "background.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("start a server")
	d.waitText("bash wants to run", "$ sleep 300", "background: true")
	d.press("y")
	d.waitIdle()
	d.waitText("Started it.", "1 bg")
	d.submit("/bash")
	d.waitText("1: sleeper — running", "sleep 300")
	d.press("ctrl+c")
	d.waitText("stopped background command 1: sleeper")
	if d.quitted() {
		t.Fatal("ctrl-c quit while a background command ran")
	}
	for _, j := range a.Background().List() {
		if j.Running {
			t.Fatalf("background command still running: %+v", j)
		}
	}
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
}

// ctrl-c with a foreground command running stops that command alone: the
// model reads that it was interrupted and answers in the same turn, and
// shiro does not quit.
func TestCtrlCStopsTheForegroundCommand(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "foreground.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("run it")
	d.waitText("bash wants to run")
	d.press("y")
	d.waitText("○ bash echo started; sleep 300\n  ⎿ started")
	d.press("ctrl+c")
	d.waitIdle()
	frame := d.waitText("● bash echo started; sleep 300\n  ⎿ The user interrupted this command. It did not finish, so its effects are unknown.",
		"· stopped the command; the turn goes on (esc stops the turn)",
		"You stopped the command, so I will not wait for it.")
	if strings.Contains(frame, "· interrupted") || d.quitted() {
		t.Fatalf("ctrl-c ended the turn or quit:\n%s", frame)
	}
	hist := a.Session.History()
	if len(hist) != 4 {
		t.Fatalf("history has %d messages, want prompt, call, result, answer", len(hist))
	}
	if r := hist[2].Parts[0].(llm.ToolResult); !r.IsError || r.Output != tools.ErrInterrupted.Error() {
		t.Fatalf("the model was sent %+v", r)
	}
}
