package cli

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

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/mcp"
)

type mcpCLI struct{ work, home string }

func (c mcpCLI) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	stdio := IO{
		In: strings.NewReader(""), Out: &out, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string { return map[string]string{"SHIRO_HOME": c.home, "HOME": c.home}[k] },
		Getwd:  func() (string, error) { return c.work, nil },
	}
	code := Run(t.Context(), args, stdio)
	return code, out.String(), errb.String()
}

func (c mcpCLI) userConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.home, ".shiro-neko", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type greetArgs struct {
	Name string `json:"name"`
}

func greeter(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "greeter", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "greet", Description: "Greet someone by name."},
		func(_ context.Context, _ *sdk.CallToolRequest, in greetArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello " + in.Name}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestMCPAddListGetRemove(t *testing.T) {
	c := mcpCLI{work: t.TempDir(), home: t.TempDir()}
	if code, _, errOut := c.run(t, "mcp", "add", "fs", "-e", "TOKEN=${FS_TOKEN}", "--", "npx", "-y", "server-fs", "."); code != 0 {
		t.Fatalf("add stdio: %d %s", code, errOut)
	}
	url := greeter(t)
	if code, _, errOut := c.run(t, "mcp", "add", "greeter", "--url", url, "-H", "X-Team: blue"); code != 0 {
		t.Fatalf("add http: %d %s", code, errOut)
	}
	var file struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(c.userConfig(t)), &file); err != nil {
		t.Fatal(err)
	}
	fs := file.MCPServers["fs"]
	if fs["command"] != "npx" || fmt.Sprint(fs["args"]) != "[-y server-fs .]" || fmt.Sprint(fs["env"]) != "map[TOKEN:${FS_TOKEN}]" {
		t.Errorf("fs = %v", fs)
	}
	if g := file.MCPServers["greeter"]; g["type"] != "http" || g["url"] != url || fmt.Sprint(g["headers"]) != "map[X-Team:blue]" {
		t.Errorf("greeter = %v", g)
	}

	// list starts what may start; fs's command exists nowhere, so it fails
	// and says why, and the greeter's tools are counted.
	code, out, _ := c.run(t, "mcp", "list", "--json")
	if code != 0 {
		t.Fatalf("list: %d", code)
	}
	var report mcp.Report
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, s := range report.Servers {
		switch s.Name {
		case "greeter":
			if s.State != mcp.StateReady || s.Tools != 1 || s.SchemaBytes == 0 {
				t.Errorf("greeter: %+v", s)
			}
		case "fs":
			if s.State != mcp.StateFailed || !strings.Contains(s.Error, "FS_TOKEN") {
				t.Errorf("fs: %+v", s)
			}
		}
	}
	code, out, _ = c.run(t, "mcp", "get", "greeter")
	if code != 0 || !strings.Contains(out, "mcp__greeter__greet") || !strings.Contains(out, "Greet someone by name.") || !strings.Contains(out, "origin:    user") {
		t.Errorf("get: %d\n%s", code, out)
	}
	if code, _, _ := c.run(t, "mcp", "remove", "fs"); code != 0 || strings.Contains(c.userConfig(t), `"fs"`) {
		t.Errorf("remove: %d\n%s", code, c.userConfig(t))
	}
	if code, _, errOut := c.run(t, "mcp", "remove", "fs"); code == 0 || !strings.Contains(errOut, `no MCP server "fs"`) {
		t.Errorf("removing twice: %d %s", code, errOut)
	}
	if code, _, errOut := c.run(t, "mcp", "add", "bad", "--url", url, "--", "npx"); code == 0 || !strings.Contains(errOut, "not both") {
		t.Errorf("both --url and a command: %d %s", code, errOut)
	}
}

func TestMCPApproveAProjectServer(t *testing.T) {
	c := mcpCLI{work: t.TempDir(), home: t.TempDir()}
	url := greeter(t)
	if err := os.WriteFile(filepath.Join(c.work, ".mcp.json"), []byte(fmt.Sprintf(`{"mcpServers":{"proj":{"type":"http","url":%q}}}`, url)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := c.run(t, "mcp", "list")
	if !strings.Contains(out, "not approved") || !strings.Contains(out, "shiro mcp approve proj") {
		t.Fatalf("list before approval:\n%s", out)
	}
	if code, _, errOut := c.run(t, "mcp", "approve", "proj", "--digest", strings.Repeat("0", 64)); code == 0 || !strings.Contains(errOut, "changed since it was shown") {
		t.Errorf("approving another digest: %d %s", code, errOut)
	}
	code, out, _ := c.run(t, "mcp", "approve", "proj")
	if code != 0 || !strings.Contains(out, "MCP server proj from "+filepath.Join(c.work, ".mcp.json")+" is new") || !strings.Contains(out, "approved MCP server proj") {
		t.Fatalf("approve: %d\n%s", code, out)
	}
	_, out, _ = c.run(t, "mcp", "list")
	if !strings.Contains(out, "ready") {
		t.Errorf("list after approval:\n%s", out)
	}
	trust, err := os.ReadFile(filepath.Join(c.home, ".shiro-neko", "mcp-trust.json"))
	if err != nil || !strings.Contains(string(trust), c.work) {
		t.Errorf("trust file: %s %v", trust, err)
	}
}

func TestEditorMCPServersBecomeDefinitions(t *testing.T) {
	ds := acpMCPServers([]acp.MCPServer{
		acp.StdioServer{Name: "fs", Command: "npx", Args: []string{"server-fs"}, Env: []acp.NameValue{{Name: "A", Value: "1"}}},
		acp.HTTPServer{Name: "web", URL: "https://example.com/mcp", Headers: []acp.NameValue{{Name: "Authorization", Value: "Bearer x"}}},
		acp.SSEServer{Name: "old", URL: "http://127.0.0.1:9/sse"},
		acp.StdioServer{Name: "bad name", Command: "x"},
	})
	if len(ds) != 3 {
		t.Fatalf("defs = %+v", ds)
	}
	for _, d := range ds {
		if d.Origin != mcp.OriginClient || d.Origin.NeedsApproval() {
			t.Errorf("%s: origin %s", d.Name, d.Origin)
		}
	}
	if s, ok := ds[0].Launch.(mcp.Stdio); !ok || s.Command != "npx" || s.Env["A"] != "1" {
		t.Errorf("fs = %#v", ds[0].Launch)
	}
	if h, ok := ds[1].Launch.(mcp.HTTP); !ok || h.Headers["Authorization"] != "Bearer x" {
		t.Errorf("web = %#v", ds[1].Launch)
	}
	if _, ok := ds[2].Launch.(mcp.SSE); !ok {
		t.Errorf("old = %#v", ds[2].Launch)
	}
}

// A server's definition is shown as written: its keys in their order, and
// an address's & and < as they are, not \u0026 and \u003c.
func TestIndentJSONShowsTheDefinitionAsWritten(t *testing.T) {
	got := indentJSON(json.RawMessage(`{"url":"https://h/mcp?a=1&b=<2>","type":"http"}`))
	want := "{\n  \"url\": \"https://h/mcp?a=1&b=<2>\",\n  \"type\": \"http\"\n}"
	if got != want {
		t.Fatalf("indentJSON = %s, want %s", got, want)
	}
	if got := indentJSON(json.RawMessage(`not json`)); got != "not json" {
		t.Fatalf("invalid JSON = %q, want it unchanged", got)
	}
}
