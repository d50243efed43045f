package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// openLearning assembles a session against the fake server with the user
// config given, attended or not; it returns the app and the memory file.
func openLearning(t *testing.T, srv *llmtest.Server, userConfig string, attended bool) (*app.App, string) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".shiro-neko"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".shiro-neko", "config.json"), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "test-key-0123456789", "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, cwd, config.Flags{Provider: "custom-openai", BaseURL: srv.URL, Model: "house-model"})
	if err != nil {
		t.Fatal(err)
	}
	loaded.Settings.MaxRetries = 0
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: true, Attended: attended})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, loaded.Paths.Memory(a.Env.Root)
}

// learned is the learner's answer proposing the pnpm rule.
var learned = llmtest.Reply{Text: `{"memories": [{"kind": "command", "text": "This project uses pnpm, not npm: add packages with pnpm add."}], "skills": []}`,
	Usage: llmtest.Usage{InputTokens: 1000, OutputTokens: 50}}

// bodyOf decodes a chat request.
func bodyOf(t *testing.T, r llmtest.Request) (model, system, user string) {
	t.Helper()
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Messages {
		text, _ := json.Marshal(m.Content)
		switch m.Role {
		case "system":
			system += string(text)
		case "user":
			user += string(text)
		}
	}
	return body.Model, system, user
}

// A headless session: the correction turn ends with the learning call on
// subagentModel, carrying the correction; the memory is on disk, the
// notice and the charge are in the turn's events, and /cost names the
// learner's model.
func TestACorrectionIsLearnedThroughTheWire(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{Text: "I ran npm install lodash.", Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 10}},
		llmtest.Reply{Text: "Done: pnpm add lodash.", Usage: llmtest.Usage{InputTokens: 120, OutputTokens: 10}},
		learned,
	)
	a, memPath := openLearning(t, srv, `{"subagentModel": "learner-model"}`, false)
	run(t.Context(), a.Session, "add lodash")
	if n := len(srv.ModelCalls()); n != 1 {
		t.Fatalf("%d model calls after a plain first turn, want 1", n)
	}
	evs := run(t.Context(), a.Session, "no, we use pnpm here")
	calls := srv.ModelCalls()
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want the two turns and the learning call", len(calls))
	}
	model, system, user := bodyOf(t, calls[2])
	if model != "learner-model" || !strings.Contains(system, "strongest signal") ||
		!strings.Contains(user, "PERSON (correcting the agent): no, we use pnpm here") || !strings.Contains(user, "npm install lodash") {
		t.Fatalf("learning call: model %q\nsystem %s\nuser %s", model, system, user)
	}
	if strings.Contains(string(calls[2].Body), `"tools"`) {
		t.Error("the learning call offered tools")
	}
	data, err := os.ReadFile(memPath)
	if err != nil || !strings.Contains(string(data), "This project uses pnpm, not npm") {
		t.Fatalf("memory file %s: %s, %v", memPath, data, err)
	}
	var notice bool
	var usage *protocol.UsageEvent
	for _, e := range evs {
		switch e := e.(type) {
		case protocol.NoticeEvent:
			notice = notice || e.Text == "auto-memory: remembered (command) This project uses pnpm, not npm: add packages with pnpm add."
		case protocol.UsageEvent:
			usage = &e
		}
	}
	if !notice {
		t.Errorf("no auto-memory notice in %v", evs)
	}
	if usage == nil || usage.InputTokens != 1220 {
		t.Errorf("the last usage event is %+v, want the learning call's tokens counted (1220 input)", usage)
	}
	if out := costOf(t, a); !strings.Contains(out, "learner-model") {
		t.Errorf("/cost does not show the learner's model:\n%s", out)
	}
	// /memory forget takes the wrong memory back out.
	if _, err := a.Session.Submit(protocol.Command{Line: "/memory forget pnpm"}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "memory" {
			if r.Error != "" || !strings.Contains(r.Output, "forgot 1 entry") {
				t.Fatalf("/memory forget: %+v", r)
			}
			break
		}
	}
	if data, _ := os.ReadFile(memPath); strings.Contains(string(data), "pnpm") {
		t.Fatalf("the memory file still holds it:\n%s", data)
	}
}

// When the model proposes nothing, nothing is written.
func TestNothingProposedNothingWritten(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: `{"memories": [], "skills": []}`},
	)
	a, memPath := openLearning(t, srv, `{}`, false)
	evs := run(t.Context(), a.Session, "no, tabs not spaces")
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("%d model calls, want the turn and the learning call", n)
	}
	if _, err := os.Stat(memPath); !os.IsNotExist(err) {
		t.Fatalf("the memory file was written (%v)", err)
	}
	if _, err := os.Stat(a.Loaded.Paths.Skills()); !os.IsNotExist(err) {
		t.Fatalf("the skill folder was made (%v)", err)
	}
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.HasPrefix(n.Text, "auto-") {
			t.Fatalf("notice %q", n.Text)
		}
	}
}

// Past 80% of maxSpendUsd the learner makes no request; with autoLearn
// off it makes none either.
func TestNoLearningPastTheCeilingOrWhenOff(t *testing.T) {
	for name, c := range map[string]string{
		// $1 per million input tokens: the turn spends $0.10 of $0.12.
		"ceiling": `{"maxSpendUsd": 0.12, "models": {"house-model": {"input": 1, "output": 1}}}`,
		"off":     `{"autoLearn": false}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Text: "ok", Usage: llmtest.Usage{InputTokens: 100_000}}, learned)
			a, memPath := openLearning(t, srv, c, false)
			run(t.Context(), a.Session, "no, we use pnpm here")
			if n := len(srv.ModelCalls()); n != 1 {
				t.Fatalf("%d model calls, want the turn's only", n)
			}
			if _, err := os.Stat(memPath); !os.IsNotExist(err) {
				t.Fatalf("the memory file was written (%v)", err)
			}
		})
	}
}

// An attended session learns in the background and the notice follows
// the turn on its own.
func TestAttendedSessionsLearnInTheBackground(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"}, learned)
	a, memPath := openLearning(t, srv, `{}`, true)
	run(t.Context(), a.Session, "no, we use pnpm here")
	for e := range a.Session.Events() {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.HasPrefix(n.Text, "auto-memory: remembered (command)") {
			break
		}
	}
	a.Learner.Wait()
	if data, err := os.ReadFile(memPath); err != nil || !strings.Contains(string(data), "pnpm") {
		t.Fatalf("memory file: %s, %v", data, err)
	}
}

// The turn never waits for the learner: with the learning call held
// unanswered by the server, the turn ends, and closing the session cuts
// the call off; nothing is written.
func TestTheTurnDoesNotWaitForTheLearner(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"}, llmtest.Reply{Fault: llmtest.Fault{Kind: llmtest.StallHeaders}})
	a, memPath := openLearning(t, srv, `{}`, true)
	evs := run(t.Context(), a.Session, "no, we use pnpm here")
	if d, ok := evs[len(evs)-1].(protocol.DoneEvent); !ok || d.Reason != protocol.StopEnd {
		t.Fatalf("the turn ended with %#v", evs[len(evs)-1])
	}
	a.Close()
	if _, err := os.Stat(memPath); !os.IsNotExist(err) {
		t.Fatalf("the memory file was written (%v)", err)
	}
}

// The learning call carries no value of the workspace's secret files and
// not the API key, even when the conversation showed them; the memory
// keeps none of them either.
func TestTheLearningCallWithholdsSecrets(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: `{"memories": [{"kind": "fact", "text": "The database password is correct-horse-battery-staple."}, {"kind": "fact", "text": "The database runs on port 5433."}]}`},
	)
	a, memPath := openLearning(t, srv, `{}`, false)
	mkfile(t, filepath.Join(a.Env.Root, ".env"), "DB_PASSWORD=correct-horse-battery-staple\n")
	run(t.Context(), a.Session, "no, the password is correct-horse-battery-staple and the key test-key-0123456789, port 5433")
	calls := srv.ModelCalls()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want the turn and the learning call", len(calls))
	}
	learning := string(calls[1].Body)
	if strings.Contains(learning, "correct-horse-battery-staple") || strings.Contains(learning, "test-key-0123456789") {
		t.Fatalf("the learning call carried a secret: %s", learning)
	}
	if !strings.Contains(learning, "[secret withheld") {
		t.Fatalf("the learning call does not say what was withheld: %s", learning)
	}
	data, err := os.ReadFile(memPath)
	if err != nil || strings.Contains(string(data), "correct-horse") || !strings.Contains(string(data), "port 5433") {
		t.Fatalf("memory file: %s, %v", data, err)
	}
}
