package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
)

type echoArgs struct {
	Message string `json:"message"`
}

// mcpServer serves an MCP server over Streamable HTTP on loopback: a tool,
// a prompt and a resource.
func mcpServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "app-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo a message.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Message}}}, nil, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a file.", Arguments: []*sdk.PromptArgument{{Name: "file", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Please review " + req.Params.Arguments["file"]}}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://doc", Name: "doc", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "the document body"}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

type mcpSession struct {
	work, home string
	srv        *llmtest.Server
}

// openMCP opens a session whose user config is userConfig and whose
// workspace has .mcp.json projectMCP (none when empty).
func openMCP(t *testing.T, userConfig, projectMCP string, attended, yolo bool, replies ...llmtest.Reply) (*app.App, mcpSession) {
	t.Helper()
	s := mcpSession{work: t.TempDir(), home: t.TempDir(), srv: llmtest.New(t, replies...)}
	if err := os.MkdirAll(filepath.Join(s.home, ".shiro-neko"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.home, ".shiro-neko", "config.json"), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if projectMCP != "" {
		if err := os.WriteFile(filepath.Join(s.work, ".mcp.json"), []byte(projectMCP), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"SHIRO_HOME": s.home, "SHIRO_API_KEY": "test-key", "HOME": s.home}
	loaded, err := app.Load(func(k string) string { return env[k] }, s.work,
		config.Flags{Provider: "custom-anthropic", BaseURL: s.srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Attended: attended, Yolo: yolo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, s
}

func requestText(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	return string(srv.ModelCalls()[i].Body)
}

func offers(t *testing.T, srv *llmtest.Server, i int, name string) bool {
	t.Helper()
	tools, _ := srv.ModelCalls()[i].JSON(t)["tools"].([]any)
	for _, tl := range tools {
		if tl.(map[string]any)["name"] == name {
			return true
		}
	}
	return false
}

// A server's tools join the session at the first turn and meet the gate:
// with nobody to ask, the default (ask) denies them; a rule allows them.
func TestMCPToolsMeetTheGate(t *testing.T) {
	url := mcpServer(t)
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "mcp__t__echo", Input: `{"message":"hi"}`}}}
	done := llmtest.Reply{Text: "ok"}
	servers := fmt.Sprintf(`"mcpServers":{"t":{"type":"http","url":%q}}`, url)

	a, s := openMCP(t, "{"+servers+"}", "", false, false, call, done)
	evs := run(t.Context(), a.Session, "echo hi")
	denied, ok := find[protocol.ToolDeniedEvent](evs)
	if !ok || denied.Name != "mcp__t__echo" {
		t.Fatalf("an MCP tool ran unasked with nobody attending: %v", evs)
	}
	if !offers(t, s.srv, 0, "mcp__t__echo") {
		t.Error("the first request does not offer the server's tool")
	}

	a, s = openMCP(t, `{`+servers+`,"permission":{"mcp__t__*":"allow"}}`, "", false, false, call, done)
	evs = run(t.Context(), a.Session, "echo hi")
	res, ok := find[protocol.ToolResultEvent](evs)
	if !ok || res.Output != "echo: hi" {
		t.Fatalf("with a rule that allows it: %v", evs)
	}
	if !strings.Contains(requestText(t, s.srv, 1), "echo: hi") {
		t.Error("the result did not reach the model")
	}
	if a.Owner().Tools() == a.Tools {
		t.Error("the session still offers the registry it started with")
	}
}

func find[T protocol.Event](evs []protocol.Event) (T, bool) {
	for _, e := range evs {
		if v, ok := e.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// A project's server waits for approval: attended, the session offers the
// approval as a choice, and once it is taken the server's tools arrive
// with the next turn; headless, one line says it was not started.
func TestProjectMCPServerNeedsApproval(t *testing.T) {
	url := mcpServer(t)
	project := fmt.Sprintf(`{"mcpServers":{"proj":{"type":"http","url":%q}}}`, url)

	a, s := openMCP(t, `{}`, project, true, true, llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	var review protocol.CommandResultEvent
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "mcp" {
			review = r
			break
		}
	}
	if len(review.Choices) != 1 || !strings.HasPrefix(review.Choices[0].Line, "/mcp approve proj ") || !strings.Contains(review.Output, url) {
		t.Fatalf("review = %+v", review)
	}
	run(t.Context(), a.Session, "first")
	if offers(t, s.srv, 0, "mcp__proj__echo") {
		t.Fatal("an unapproved project server's tool was offered")
	}
	if _, err := a.Session.Submit(protocol.Command{Line: review.Choices[0].Line}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok {
			if !strings.Contains(r.Output, "approved MCP server proj") {
				t.Fatalf("approving: %+v", r)
			}
			break
		}
	}
	run(t.Context(), a.Session, "second")
	if !offers(t, s.srv, 1, "mcp__proj__echo") {
		t.Error("the approved server's tool was not offered at the next turn")
	}

	a, _ = openMCP(t, `{}`, project, false, true, llmtest.Reply{Text: "one"})
	evs := run(t.Context(), a.Session, "go")
	var lines []string
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, "proj") {
			lines = append(lines, n.Text)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "not started: not approved") || strings.Contains(lines[0], "\n") {
		t.Errorf("headless notices about the server: %q", lines)
	}
}

// A prompt runs as a turn through its slash command, and a resource named
// with @server:uri reaches the model with the message.
func TestMCPPromptsAndResources(t *testing.T) {
	url := mcpServer(t)
	a, s := openMCP(t, fmt.Sprintf(`{"mcpServers":{"t":{"type":"http","url":%q}}}`, url), "", true, true,
		llmtest.Reply{Text: "started"}, llmtest.Reply{Text: "reviewed"}, llmtest.Reply{Text: "read"})
	evs := run(t.Context(), a.Session, "hello")
	listed := false
	for _, e := range evs {
		if c, ok := e.(protocol.CommandsEvent); ok {
			for _, info := range c.Commands {
				listed = listed || (info.Name == "mcp__t__review" && info.Args == "FILE")
			}
		}
	}
	if !listed {
		t.Error("the server's prompt was not announced as a command once it started")
	}
	if _, err := a.Session.Submit(protocol.Command{Line: "/mcp__t__review main.go"}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if _, ok := e.(protocol.DoneEvent); ok {
			break
		}
	}
	if !strings.Contains(requestText(t, s.srv, 1), "Please review main.go") {
		t.Errorf("the prompt's text did not reach the model: %s", requestText(t, s.srv, 1))
	}
	evs = run(t.Context(), a.Session, "summarise @t:test://doc")
	if start, _ := find[protocol.TurnStartEvent](evs); start.Text != "summarise @t:test://doc" {
		t.Errorf("turn start = %q", start.Text)
	}
	if body := requestText(t, s.srv, 2); !strings.Contains(body, "the document body") {
		t.Errorf("the resource did not reach the model")
	}
	out, err := json.Marshal(a.MCP.Status())
	if err != nil || !strings.Contains(string(out), `"schemaBytes"`) {
		t.Errorf("status: %s %v", out, err)
	}
	if _, err := a.Session.Submit(protocol.Command{Line: "/mcp"}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok {
			if !strings.Contains(r.Output, "SCHEMA BYTES") || !strings.Contains(r.Output, "ready") || !strings.Contains(r.Output, "each tool is offered directly") {
				t.Errorf("/mcp:\n%s", r.Output)
			}
			break
		}
	}
}

func TestNoMCPStartsNothing(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, NoMCP: true, Provider: replay.New("test", nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.MCP != nil {
		t.Error("--no-mcp made an MCP manager")
	}
}

func TestBadMCPServersInTheUserConfigStopLoading(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".shiro-neko"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, ".shiro-neko", "config.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers":{"x":{"command":["npx"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SHIRO_HOME": home, "HOME": home}
	_, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
	if err == nil || err.Error() != file+`: field "mcpServers.x.command" should be a string, not an array` {
		t.Errorf("load = %v", err)
	}
}
