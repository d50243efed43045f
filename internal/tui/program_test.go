package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// These tests run the model in a real tea.Program (teatest): input
// decoding, the renderer and command scheduling are Bubble Tea's own.

func waitOutput(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := ansi.Strip(string(b))
		for _, w := range want {
			if !strings.Contains(plain, w) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func startProgram(t *testing.T, env *testEnv, cassette string) (*teatest.TestModel, *model) {
	t.Helper()
	a, ap := env.open(t, replayFlags(t, cassette), nil)
	ctx, cancel := context.WithCancel(t.Context())
	m := newModel(ctx, a, ap, Options{})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(testWidth, testHeight))
	t.Cleanup(func() {
		cancel()
		m.shutdown()
	})
	return tm, m
}

func TestProgramRunsAPromptAndQuits(t *testing.T) {
	env := newTestEnv(t)
	tm, _ := startProgram(t, env, "turn.jsonl")
	tm.Type("hello")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "read code", "edit files")
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	if final.turn != nil || !final.quitting {
		t.Fatalf("after ctrl-c: turn %v, quitting %v", final.turn, final.quitting)
	}
	res := Result{Usage: final.app.Session.Usage()}
	if got := res.Farewell(); !strings.HasPrefix(got, "Good bye.\nTokens this session: 1,200 in · 40 out · cache 3,000 read, 1,000 written (58% hit)") {
		t.Fatalf("farewell = %q", got)
	}
}

func TestProgramApprovalYWritesTheFile(t *testing.T) {
	env := newTestEnv(t)
	tm, _ := startProgram(t, env, "write.jsonl")
	tm.Type("make the note")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "write_file wants to run", "+shiro")
	tm.Type("y")
	waitOutput(t, tm, "Finished.")
	got, err := os.ReadFile(filepath.Join(env.work, "notes", "hello.txt"))
	if err != nil || string(got) != "hello\nshiro\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
	tm.Type("/exit")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
