package claudecode

import (
	"slices"
	"sort"
	"strings"
)

// ToolNames maps Claude Code's tool names onto the shiro tools that do the
// same work. It is the one such table: agent files' tool lists and hook
// matchers both read it. A function, not a package map, so that nothing
// can change the table.
func ToolNames() map[string][]string {
	return map[string][]string{
		"Bash":      {"bash", "bash_status", "bash_stop"},
		"Read":      {"read_file", "read_many_files"},
		"Edit":      {"edit_file", "apply_patch"},
		"MultiEdit": {"multi_edit"},
		"Write":     {"write_file"},
		"Grep":      {"grep"},
		"Glob":      {"glob", "find_files"},
		"LS":        {"list_dir", "tree"},
		"WebFetch":  {"web_fetch"},
		"WebSearch": {"web_search"},
	}
}

// ClaudeNames returns the Claude Code names a shiro tool answers to, for
// matching Claude Code's hook matchers: the table read backwards, and an
// MCP tool under its own name, which both spell mcp__server__tool. A tool
// Claude Code has no name for answers to none.
func ClaudeNames(shiro string) []string {
	if strings.HasPrefix(shiro, "mcp__") {
		return []string{shiro}
	}
	var out []string
	for claude, names := range ToolNames() {
		if slices.Contains(names, shiro) {
			out = append(out, claude)
		}
	}
	sort.Strings(out)
	return out
}
