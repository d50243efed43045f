package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// secretEnv puts tokens and server addresses in the environment shiro
// runs with, as a person's shell would, and returns it as getenv sees it.
func secretEnv(t *testing.T, home string) map[string]string {
	env := map[string]string{
		"GITHUB_TOKEN": "ghp_never_shown", "AWS_SECRET_ACCESS_KEY": "aws_never_shown", "NPM_TOKEN": "npm_passed_on",
		"TMUX": "/tmp/tmux-1000/default,77,0", "SSH_AUTH_SOCK": "/tmp/ssh-never/agent.1",
		"DATABASE_URL": "postgres://app:pw_never_shown@db/app",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	env["SHIRO_HOME"], env["SHIRO_API_KEY"], env["HOME"] = home, "test-key", home
	return env
}

// openWithEnv opens an attended session whose user config is userConfig,
// whose workspace has .mcp.json projectMCP (none when empty), and whose
// environment is env. The sandbox is off, as this test binary cannot serve
// as its helper; the launcher hands a command the environment it is given
// (the sandbox's own tests cover that), so what is tested here is what
// the session gives it.
func openWithEnv(t *testing.T, env map[string]string, userConfig, projectMCP string, srv *llmtest.Server) *app.App {
	t.Helper()
	work, home := t.TempDir(), env["HOME"]
	if err := os.MkdirAll(filepath.Join(home, ".shiro-neko"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".shiro-neko", "config.json"), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if projectMCP != "" {
		if err := os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(projectMCP), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loaded, err := app.Load(func(k string) string { return env[k] }, work,
		config.Flags{Provider: "custom-anthropic", BaseURL: srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	loaded.Settings.SandboxFlag = "off"
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Attended: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// `env` run by the model, through the real bash tool, workspace and
// sandbox, shows no token, no credential URL and no server address; the
// variable the person passes through is there.
func TestCommandsSeeTheScrubbedEnvironment(t *testing.T) {
	env := secretEnv(t, t.TempDir())
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Input: `{"command":"env"}`}}},
		llmtest.Reply{Text: "done"})
	a := openWithEnv(t, env, `{"env":{"passthrough":["NPM_TOKEN"]},"permission":{"bash":"allow"}}`, "", srv)
	evs := run(t.Context(), a.Session, "show the environment")
	res, ok := find[protocol.ToolResultEvent](evs)
	if !ok {
		t.Fatalf("no tool result: %v", evs)
	}
	sent := requestText(t, srv, 1)
	for _, leak := range []string{"ghp_never_shown", "aws_never_shown", "pw_never_shown", "TMUX=", "SSH_AUTH_SOCK=", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"} {
		if strings.Contains(res.Output, leak) || strings.Contains(sent, leak) {
			t.Errorf("%s reached the model", leak)
		}
	}
	if !strings.Contains(res.Output, "NPM_TOKEN=npm_passed_on") || !strings.Contains(res.Output, "PATH=") {
		t.Errorf("the passed-through variable or PATH is missing:\n%s", res.Output)
	}
}

// A project's remote server asking for ${GITHUB_TOKEN} in a header gets
// nothing, and the person is told, naming the file, server and variable;
// the variable the person passes through arrives.
func TestProjectMCPCannotExpandASecret(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	s := sdk.NewServer(&sdk.Implementation{Name: "proj", Version: "1"}, nil)
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["Authorization"] += r.Header.Get("Authorization") + ";"
		seen["X-Npm"] += r.Header.Get("X-Npm") + ";"
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	env := secretEnv(t, t.TempDir())
	project := fmt.Sprintf(`{"mcpServers":{"proj":{"type":"http","url":%q,"headers":{"Authorization":"Bearer ${GITHUB_TOKEN}","X-Npm":"${NPM_TOKEN}"}}}}`, ts.URL)
	srv := llmtest.New(t, llmtest.Reply{Text: "one"})
	a := openWithEnv(t, env, `{"env":{"passthrough":["NPM_TOKEN"]}}`, project, srv)

	var review protocol.CommandResultEvent
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "mcp" {
			review = r
			break
		}
	}
	if len(review.Choices) != 1 || !strings.Contains(review.Output, "GITHUB_TOKEN") {
		t.Fatalf("review = %+v", review)
	}
	if _, err := a.Session.Submit(protocol.Command{Line: review.Choices[0].Line}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if _, ok := e.(protocol.CommandResultEvent); ok {
			break
		}
	}
	evs := run(context.Background(), a.Session, "go")
	warned := false
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, ".mcp.json: server proj: ${GITHUB_TOKEN} in headers.Authorization was left empty") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning naming the file, server and variable: %v", evs)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["Authorization"] == "" || strings.Contains(seen["Authorization"], "ghp_") {
		t.Errorf("the project's server received Authorization %q", seen["Authorization"])
	}
	if !strings.Contains(seen["X-Npm"], "npm_passed_on;") {
		t.Errorf("the passed-through variable did not arrive: %q", seen["X-Npm"])
	}
}
