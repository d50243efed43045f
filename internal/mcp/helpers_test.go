package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// The test binary doubles as the MCP servers the tests start over stdio:
// SHIRO_MCP_TEST_SERVER says which.
//
//	serve  a server with the tools, prompt and resource of testServer
//	hang   a process that never answers (it reads stdin until it ends)
//	exit   a process that says why on stderr and exits with status 3
//	dial   a server that first connects to SHIRO_MCP_TEST_DIAL (a TCP
//	       address) and, when it cannot, says why on stderr and exits 1
//
// With SHIRO_MCP_TEST_MARKER set, each writes its pid there first, so a
// test can tell whether it was started and whether it is gone; with
// SHIRO_MCP_TEST_ENVFILE set, its whole environment, one entry a line.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mode := os.Getenv("SHIRO_MCP_TEST_SERVER")
	if mode == "" {
		os.Exit(m.Run())
	}
	if marker := os.Getenv("SHIRO_MCP_TEST_MARKER"); marker != "" {
		_ = os.WriteFile(marker, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if envFile := os.Getenv("SHIRO_MCP_TEST_ENVFILE"); envFile != "" {
		_ = os.WriteFile(envFile, []byte(strings.Join(os.Environ(), "\n")), 0o600)
	}
	switch mode {
	case "serve":
		if err := testServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "dial":
		conn, err := net.Dial("tcp", os.Getenv("SHIRO_MCP_TEST_DIAL"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "cannot reach the API:", err)
			os.Exit(1)
		}
		_, _ = conn.Write([]byte("hello from the server\n"))
		_ = conn.Close()
		if err := testServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "cannot open the database")
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, "unknown SHIRO_MCP_TEST_SERVER mode", mode)
	os.Exit(2)
}

type echoIn struct {
	Message string `json:"message" jsonschema:"what to echo"`
}

type empty struct{}

// testServer is the SDK server the tests talk to, over stdio or HTTP.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "shiro-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo a message back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Message}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit in the middle of the call."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "boom: the disk caught fire")
			os.Exit(7)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Return a very long text."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", 40000)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "mixed", Description: "Return text, an image, a resource link and an embedded resource."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here it is"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
				&sdk.ResourceLink{URI: "test://doc", Name: "doc", MIMEType: "text/plain", Description: "the document"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://inline", MIMEType: "text/plain", Text: "inline body"}},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "structured", Description: "Return structured content only."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Report a failure."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it went wrong"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Add the tool extra."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "extra", Description: "A tool added later."},
				func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "extra ran"}}}, nil, nil
				})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a file.", Arguments: []*sdk.PromptArgument{
		{Name: "file", Required: true}, {Name: "focus"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text := "Please review " + req.Params.Arguments["file"]
		if f := req.Params.Arguments["focus"]; f != "" {
			text += " with a focus on " + f
		}
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
	})
	s.AddResource(&sdk.Resource{URI: "test://doc", Name: "doc", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "the document body"}}}, nil
		})
	return s
}

// stdioJSON is the definition of a test server over stdio.
func stdioJSON(t testing.TB, mode, marker string, extra ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A race-enabled binary sleeps a second at exit unless told not to.
	env := map[string]string{"SHIRO_MCP_TEST_SERVER": mode, "GORACE": "atexit_sleep_ms=0"}
	if marker != "" {
		env["SHIRO_MCP_TEST_MARKER"] = marker
	}
	def := map[string]any{"command": exe, "args": append([]string{"-test.run=^$"}, extra...), "env": env}
	b, _ := json.Marshal(def)
	return string(b)
}

// defs parses an mcpServers object of one origin.
func defs(t testing.TB, origin Origin, servers map[string]string) []Def {
	t.Helper()
	var b strings.Builder
	b.WriteString("{")
	first := true
	for name, def := range servers {
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "%q:%s", name, def)
	}
	b.WriteString("}")
	out, _, err := ParseServers("test.json", "mcpServers", origin, json.RawMessage(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// clock is a time the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// notices collects what the manager reports.
type notices struct {
	mu   sync.Mutex
	list []string
}

func (n *notices) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, s)
}

func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

type fixture struct {
	m       *Manager
	clock   *clock
	notices *notices
	root    string
	home    string
}

func newFixture(t testing.TB, ds []Def, tune func(*Options)) *fixture {
	t.Helper()
	f := &fixture{clock: newClock(), notices: &notices{}, root: t.TempDir(), home: t.TempDir()}
	opts := Options{
		Defs: ds, Trust: NewTrust(f.home + "/mcp-trust.json"), Root: f.root,
		LogDir: f.home + "/logs", Notice: f.notices.add, Now: f.clock.Now, StartTimeout: 20 * time.Second,
	}
	if tune != nil {
		tune(&opts)
	}
	f.m = New(opts)
	t.Cleanup(f.m.Close)
	return f
}

func (f *fixture) status(name string) ServerStatus {
	for _, s := range f.m.Status().Servers {
		if s.Name == name {
			return s
		}
	}
	return ServerStatus{}
}

func invoke(t *testing.T, tl tool.Tool, input string) (string, error) {
	t.Helper()
	res, err := tooltest.Invoke(context.Background(), tl, json.RawMessage(input), tool.Runtime{})
	return res.Output, err
}
