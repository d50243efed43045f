package app_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/trust"
)

// A project's status line command (Claude Code's .claude/settings.json)
// never runs before the person approves its digest: the person's own runs
// meanwhile. /statusline shows the digest, refuses another one, and once
// approved the project's command runs.
func TestProjectStatusLineRunsOnlyOnceApproved(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(work, "ran")
	command := fmt.Sprintf("touch %s; echo project-line", marker)
	mkfile(t, filepath.Join(work, ".claude", "settings.json"), fmt.Sprintf(`{"statusLine":{"type":"command","command":%q}}`, command))
	mkfile(t, filepath.Join(home, ".claude", "settings.json"), `{"statusLine":{"type":"command","command":"echo user-line","padding":1}}`)
	a := openIn(t, work, home, llmtest.New(t), false)
	run := a.StatusLine()
	if run == nil {
		t.Fatal("no status line although two files set one")
	}
	line, err := run(t.Context(), 0, 0)
	if err != nil || line != " user-line" {
		t.Fatalf("before approval: %q, %v; want the person's own line, padded", line, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the project's command ran before approval: %v", err)
	}
	digest := trust.Digest([]byte(command))
	out, err := commandOutput(t, a, "/statusline")
	if err != nil || !strings.Contains(out, "is not approved") || !strings.Contains(out, digest) || !strings.Contains(out, ".claude/settings.json") {
		t.Fatalf("/statusline: %q, %v", out, err)
	}
	if _, err := commandOutput(t, a, "/statusline approve "+strings.Repeat("0", 64)); err == nil || !strings.Contains(err.Error(), "changed since it was shown") {
		t.Fatalf("approving another digest: %v", err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the project's command ran: %v", err)
	}
	if _, err := commandOutput(t, a, "/statusline approve "+digest); err != nil {
		t.Fatal(err)
	}
	if line, err := run(t.Context(), 0, 0); err != nil || line != "project-line" {
		t.Fatalf("after approval: %q, %v", line, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
}

// An attended session with a project's command waiting offers its
// approval at start, as a choice pinned to the digest.
func TestPendingStatusLineIsOfferedAtStart(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(work, ".shiro", "config.json"), `{"statusLine":"echo theirs"}`)
	env := map[string]string{"SHIRO_HOME": home, "HOME": home, "SHIRO_API_KEY": "k"}
	loaded, err := app.Load(func(k string) string { return env[k] }, work,
		config.Flags{Provider: "custom-openai", BaseURL: llmtest.New(t).URL, Model: "m", Sandbox: "off"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Attended: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	want := "/statusline approve " + trust.Digest([]byte("echo theirs"))
	deadline := time.After(waitLimit)
	for {
		select {
		case e := <-a.Session.Events():
			if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "statusline" {
				if len(r.Choices) != 1 || r.Choices[0].Line != want || !strings.Contains(r.Output, ".shiro/config.json") {
					t.Fatalf("offer: %+v", r)
				}
				return
			}
		case <-deadline:
			t.Fatal("no approval offered for the project's status line")
		}
	}
}

// The person's command reads the session: its id, model, folders, mode,
// agent, context window and the edits the front end counted.
func TestStatusLineInputDescribesTheSession(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	got := filepath.Join(home, "stdin.json")
	mkfile(t, filepath.Join(home, ".shiro-neko", "config.json"), fmt.Sprintf(`{"statusLine":{"command":"cat > %s; echo ok"}}`, got))
	a := openIn(t, work, home, llmtest.New(t), false)
	if line, err := a.StatusLine()(t.Context(), 7, 2); err != nil || line != "ok" {
		t.Fatalf("run: %q, %v", line, err)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Model     struct {
			ID string `json:"id"`
		} `json:"model"`
		Workspace struct {
			ProjectDir string `json:"project_dir"`
		} `json:"workspace"`
		Cost struct {
			Added   int `json:"total_lines_added"`
			Removed int `json:"total_lines_removed"`
		} `json:"cost"`
		Mode    string `json:"permission_mode"`
		Agent   string `json:"agent"`
		Context struct {
			Window int `json:"window_tokens"`
		} `json:"context"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if in.SessionID != a.Session.ID() || in.Cwd != a.Env.Root || in.Workspace.ProjectDir != a.Env.Root || in.Model.ID != "test-model" ||
		in.Cost.Added != 7 || in.Cost.Removed != 2 || in.Mode != "default" || in.Agent != "default" || in.Context.Window <= 0 {
		t.Fatalf("stdin: %s", data)
	}
}
