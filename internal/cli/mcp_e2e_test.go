package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// referenceServers finds the npm reference servers .ci/run installs:
// $SHIRO_MCP_SERVERS, or the folder .ci/run uses by default. The test
// skips, saying how to get them, when node or the servers are missing.
func referenceServers(t *testing.T) (everything, filesystem string) {
	t.Helper()
	dir := os.Getenv("SHIRO_MCP_SERVERS")
	if dir == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(cache, "shiro-ci", "mcp-servers")
		}
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	everything, filesystem = filepath.Join(bin, "mcp-server-everything"), filepath.Join(bin, "mcp-server-filesystem")
	_, errNode := exec.LookPath("node")
	_, errE := os.Stat(everything)
	_, errF := os.Stat(filesystem)
	switch {
	case errNode != nil:
		t.Skip("node is not installed, so the MCP reference servers cannot run")
	case errE != nil || errF != nil:
		t.Skipf("the MCP reference servers are not installed in %s: run .ci/run, which installs "+
			"@modelcontextprotocol/server-everything and server-filesystem with npm, or set SHIRO_MCP_SERVERS to a folder holding them", dir)
	}
	return everything, filesystem
}

// serveEverythingOverHTTP starts server-everything's Streamable HTTP
// transport on a free loopback port and returns its endpoint.
func serveEverythingOverHTTP(t *testing.T, everything string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(everything, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- ""
			}
		}
		ready <- "the server ended before it listened"
	}()
	select {
	case msg := <-ready:
		if msg != "" {
			t.Fatal(msg)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("server-everything did not start listening within a minute")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// toolResults reads the tool results a request to the Anthropic API
// carried, by tool_use_id.
func toolResults(t *testing.T, body map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, c := range content {
			block, _ := c.(map[string]any)
			if block["type"] != "tool_result" {
				continue
			}
			var text strings.Builder
			switch v := block["content"].(type) {
			case string:
				text.WriteString(v)
			case []any:
				for _, part := range v {
					if s, ok := part.(map[string]any)["text"].(string); ok {
						text.WriteString(s)
					}
				}
			}
			out[block["tool_use_id"].(string)] = text.String()
		}
	}
	return out
}

func offeredTools(body map[string]any) []string {
	var names []string
	tools, _ := body["tools"].([]any)
	for _, tl := range tools {
		if name, ok := tl.(map[string]any)["name"].(string); ok {
			names = append(names, name)
		}
	}
	return names
}

type e2e struct {
	work, home, config string
}

// newE2E makes a workspace with a file to read, a shiro home whose config
// is userConfig, and an --mcp-config file with the reference servers: two
// over stdio (everything, fs) and everything over Streamable HTTP (web).
func newE2E(t *testing.T, userConfig string) e2e {
	t.Helper()
	everything, filesystem := referenceServers(t)
	e := e2e{work: t.TempDir(), home: t.TempDir()}
	if err := os.WriteFile(filepath.Join(e.work, "notes.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.home, ".shiro-neko"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".shiro-neko", "config.json"), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything},
		"fs":         map[string]any{"command": filesystem, "args": []string{e.work}},
		"web":        map[string]any{"type": "http", "url": serveEverythingOverHTTP(t, everything)},
	}}
	b, _ := json.Marshal(servers)
	e.config = filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(e.config, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e e2e) run(t *testing.T, srv *llmtest.Server, prompt string) (stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	stdio := IO{
		In: strings.NewReader(""), Out: &out, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string {
			return map[string]string{"SHIRO_HOME": e.home, "HOME": e.home, "SHIRO_API_KEY": "test-key", "PATH": os.Getenv("PATH")}[k]
		},
		Getwd: func() (string, error) { return e.work, nil },
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	code := Run(ctx, []string{"-p", prompt, "--json", "--yolo", "--provider", "custom-anthropic", "--base-url", srv.URL,
		"--model", "test-model", "--mcp-config", e.config}, stdio)
	if code != 0 {
		t.Fatalf("shiro exited %d\nstderr:\n%s\nstdout:\n%s", code, errb.String(), out.String())
	}
	return out.String(), errb.String()
}

// shiro, driven through the loopback fake model, calls tools of the
// reference servers over stdio (everything, filesystem) and of
// server-everything over Streamable HTTP; the request log shows the tools
// offered and the results that went back. A deny rule refuses an MCP
// call like any other: the file it would write is never written.
func TestMCPReferenceServersEndToEnd(t *testing.T) {
	e := newE2E(t, `{"mcp":{"directToolBudgetBytes":500000},"permission":{"mcp__fs__write_file":"deny"}}`)
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{ID: "c1", Name: "mcp__everything__echo", Input: `{"message":"over stdio"}`},
			{ID: "c2", Name: "mcp__fs__read_text_file", Input: fmt.Sprintf(`{"path":%q}`, filepath.Join(e.work, "notes.txt"))},
			{ID: "c3", Name: "mcp__web__echo", Input: `{"message":"over streamable http"}`},
			{ID: "c4", Name: "mcp__fs__write_file", Input: fmt.Sprintf(`{"path":%q,"content":"no"}`, filepath.Join(e.work, "denied.txt"))},
		}},
		llmtest.Reply{Text: "All done."},
	)
	stdout, _ := e.run(t, srv, "use the MCP tools")

	calls := srv.ModelCalls()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2\n%s", len(calls), stdout)
	}
	offered := offeredTools(calls[0].JSON(t))
	for _, want := range []string{"mcp__everything__echo", "mcp__fs__read_text_file", "mcp__fs__write_file", "mcp__web__echo"} {
		if !slices.Contains(offered, want) {
			t.Errorf("the first request does not offer %s; it offers %v", want, offered)
		}
	}
	results := toolResults(t, calls[1].JSON(t))
	for id, want := range map[string]string{
		"c1": "Echo: over stdio",
		"c2": "hello from the workspace",
		"c3": "Echo: over streamable http",
		"c4": "Refused by the permission rules",
	} {
		if !strings.Contains(results[id], want) {
			t.Errorf("result of %s = %q, want it to hold %q", id, results[id], want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.work, "denied.txt")); err == nil {
		t.Error("a call a deny rule refused wrote its file")
	}
}

// Over the budget the request offers mcp_search and mcp_call instead of
// every server tool, and a call through mcp_call reaches the server.
func TestMCPMetaModeEndToEnd(t *testing.T) {
	e := newE2E(t, `{"mcp":{"directToolBudgetBytes":2000}}`)
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "mcp_search", Input: `{"query":"echo"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp_call", Input: `{"tool":"mcp__web__echo","arguments":{"message":"via the meta tool"}}`}}},
		llmtest.Reply{Text: "All done."},
	)
	stdout, _ := e.run(t, srv, "find and call echo")
	calls := srv.ModelCalls()
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3\n%s", len(calls), stdout)
	}
	offered := offeredTools(calls[0].JSON(t))
	if !slices.Contains(offered, "mcp_search") || !slices.Contains(offered, "mcp_call") || slices.ContainsFunc(offered, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Errorf("over the budget the request offers %v", offered)
	}
	if found := toolResults(t, calls[1].JSON(t))["s1"]; !strings.Contains(found, "## mcp__web__echo") || !strings.Contains(found, "## mcp__everything__echo") {
		t.Errorf("mcp_search found:\n%s", found)
	}
	if got := toolResults(t, calls[2].JSON(t))["m1"]; !strings.Contains(got, "Echo: via the meta tool") {
		t.Errorf("mcp_call returned %q", got)
	}
	if !strings.Contains(stdout, `"name":"mcp__web__echo"`) {
		t.Error("the tool-call event does not name the server tool mcp_call stood for")
	}
}
