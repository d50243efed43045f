package config

import (
	"fmt"
	"path/filepath"
)

// MCPConfig is the `mcp` object: how MCP servers' tools are offered and
// how long a server may take to start. The servers themselves are
// mcpServers (and a project's .mcp.json).
type MCPConfig struct {
	// DirectToolBudgetBytes is the size of the servers' tool schemas
	// above which the model finds tools with mcp_search and calls them
	// with mcp_call instead of being offered each one.
	DirectToolBudgetBytes *int `json:"directToolBudgetBytes,omitempty"`
	// StartTimeoutMs bounds a server's start (connect, initialize, list).
	StartTimeoutMs *int `json:"startTimeoutMs,omitempty"`
}

// check validates the numbers of the `mcp` object in the file name.
func (m *MCPConfig) check(name string) error {
	if b := m.DirectToolBudgetBytes; b != nil && (*b < 0 || *b > 1<<20) {
		return fmt.Errorf("%s: field \"mcp.directToolBudgetBytes\" must be between 0 and 1048576", name)
	}
	if ms := m.StartTimeoutMs; ms != nil && (*ms < 100 || *ms > 600000) {
		return fmt.Errorf("%s: field \"mcp.startTimeoutMs\" must be between 100 and 600000", name)
	}
	return nil
}

// MCPTrust is the record of approved project MCP servers.
func (p Paths) MCPTrust() string { return filepath.Join(p.State(), "mcp-trust.json") }

// MCPLogs holds one log per MCP server: its stderr, never the screen.
func (p Paths) MCPLogs() string { return filepath.Join(p.State(), "mcp", "logs") }

// MCPAuth holds the OAuth tokens of remote MCP servers (0600 files).
func (p Paths) MCPAuth() string { return filepath.Join(p.State(), "mcp", "oauth") }

// ProjectMCPFile is a project's .mcp.json, in the shape Claude Code uses.
func ProjectMCPFile(root string) string { return filepath.Join(root, ".mcp.json") }
