package acp

import (
	"log/slog"

	"github.com/coder/acp-go-sdk"
)

// MCPServer is an MCP server the client asked a session to use: one type
// per transport (StdioServer, HTTPServer, SSEServer).
type MCPServer interface {
	// ServerName is the name the client gave it.
	ServerName() string
	mcpServer()
}

// NameValue is an environment variable or an HTTP header.
type NameValue struct {
	Name  string
	Value string
}

// StdioServer is started as a process speaking MCP on its stdin and stdout.
type StdioServer struct {
	Name    string
	Command string
	Args    []string
	Env     []NameValue
}

// HTTPServer is reached over MCP's streamable HTTP transport.
type HTTPServer struct {
	Name    string
	URL     string
	Headers []NameValue
}

// SSEServer is reached over MCP's older HTTP+SSE transport.
type SSEServer struct {
	Name    string
	URL     string
	Headers []NameValue
}

func (s StdioServer) ServerName() string { return s.Name }
func (s HTTPServer) ServerName() string  { return s.Name }
func (s SSEServer) ServerName() string   { return s.Name }

func (StdioServer) mcpServer() {}
func (HTTPServer) mcpServer()  {}
func (SSEServer) mcpServer()   {}

// mcpServers converts the client's list. A server over the ACP transport
// itself (an unstable extension) cannot be reached from a session and is
// left out with a log line; nothing here fails a session.
func mcpServers(in []acp.McpServer, log *slog.Logger) []MCPServer {
	out := make([]MCPServer, 0, len(in))
	for _, s := range in {
		switch {
		case s.Stdio != nil:
			out = append(out, StdioServer{Name: s.Stdio.Name, Command: s.Stdio.Command, Args: s.Stdio.Args, Env: envPairs(s.Stdio.Env)})
		case s.Http != nil:
			out = append(out, HTTPServer{Name: s.Http.Name, URL: s.Http.Url, Headers: headerPairs(s.Http.Headers)})
		case s.Sse != nil:
			out = append(out, SSEServer{Name: s.Sse.Name, URL: s.Sse.Url, Headers: headerPairs(s.Sse.Headers)})
		case s.Acp != nil:
			log.Info("acp: MCP servers over the ACP transport are not supported; leaving it out", "server", s.Acp.Name)
		}
	}
	return out
}

func envPairs(vs []acp.EnvVariable) []NameValue {
	out := make([]NameValue, len(vs))
	for i, v := range vs {
		out[i] = NameValue{Name: v.Name, Value: v.Value}
	}
	return out
}

func headerPairs(hs []acp.HttpHeader) []NameValue {
	out := make([]NameValue, len(hs))
	for i, h := range hs {
		out[i] = NameValue{Name: h.Name, Value: h.Value}
	}
	return out
}

func serverNames(ss []MCPServer) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ServerName()
	}
	return out
}
