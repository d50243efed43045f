package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// writeTurn is a model response that writes one file, then a closing one.
func writeTurn(t *testing.T, path string) []replay.Response {
	t.Helper()
	input, err := json.Marshal(map[string]string{"path": path, "content": "x\n"})
	if err != nil {
		t.Fatal(err)
	}
	return []replay.Response{
		{llm.ToolCallDone{ID: "w-" + path, Name: "write_file", Input: input}, llm.Finish{Reason: llm.StopToolUse}},
		{llm.TextDelta{Text: "wrote " + path}, llm.Finish{Reason: llm.StopEnd}},
	}
}

// workflowCommand runs /workflow through the session, as a front end does,
// and returns its output.
func workflowCommand(t *testing.T, a *app.App) string {
	t.Helper()
	if _, err := a.Session.Submit(protocol.Command{Line: "/workflow"}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "workflow" {
			if r.Error != "" {
				t.Fatalf("/workflow failed: %s", r.Error)
			}
			return r.Output
		}
	}
	t.Fatal("the session closed before /workflow answered")
	return ""
}

// /workflow shows the nudge count the session's own nudger keeps: a turn
// that writes a file without touching the task list, in a repository with
// TODO.md, sends a nudge, and /workflow then says 1/3.
func TestWorkflowCommandCountsTheSessionsNudges(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	for _, dir := range []string{".git", "docs"} {
		if err := os.MkdirAll(filepath.Join(work, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "TODO.md"), []byte("# TODO\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SHIRO_HOME": home, "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: true, Provider: replay.New("t", writeTurn(t, "a.txt"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)

	root, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	before := workflowCommand(t, a)
	if !strings.Contains(before, "nudges: 0/3 sent this session") ||
		!strings.Contains(before, "policy: in the prompt: "+root+" tracks its progress in TODO.md, docs/") {
		t.Fatalf("before any turn:\n%s", before)
	}
	nudged := false
	for e := range a.Session.Send(t.Context(), "write a.txt") {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.HasPrefix(n.Text, "reminder: you modified files") {
			nudged = true
		}
	}
	if !nudged {
		t.Fatal("the turn wrote a file in a tracked repository and sent no nudge")
	}
	if after := workflowCommand(t, a); !strings.Contains(after, "nudges: 1/3 sent this session") {
		t.Fatalf("after one nudge:\n%s", after)
	}
}
