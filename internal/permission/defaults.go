package permission

import (
	"slices"
	"sort"
)

// builtinEntries returns the defaults that apply to a tool no config key
// names. A config entry for the tool replaces its default entirely.
func builtinEntries() map[string]Entry {
	m := map[string]Entry{}
	// Reading is free, except files that usually hold secrets. Rules are in
	// last-match-wins order: `.env.example` is allowed after `*.env.*` denies.
	secrets := []Rule{
		{"*", Allow},
		{"*.env", Deny},
		{"*.env.*", Deny},
		{"*.env.example", Allow},
		{"*.pem", Deny},
	}
	for _, name := range []string{"read_file", "read_many_files"} {
		m[name] = Entry{Key: name, Source: SourceDefault, Rules: slices.Clone(secrets), ByName: true}
	}
	// Read-only, but they reach the network: ask.
	for _, name := range []string{"web_fetch", "web_search"} {
		m[name] = Entry{Key: name, Source: SourceDefault, Decision: Ask}
	}
	for _, name := range []string{"mcp_list", "mcp_inspect"} {
		m[name] = Entry{Key: name, Source: SourceDefault, Decision: Allow}
	}
	// The mutating tools ask. Listing them here, before the read-only
	// fallback, means a tool wrongly reported as read-only still asks.
	for _, name := range mutatingTools() {
		m[name] = Entry{Key: name, Source: SourceDefault, Decision: Ask}
	}
	return m
}

func mutatingTools() []string {
	return []string{
		"write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file",
		"insert_lines", "delete_lines", "replace_lines", "append_file", "prepend_file",
		"bash", "bash_stop", "run_checks", "mcp_call",
	}
}

// isFree reports the tools that are allowed without a rule even when the
// caller does not mark them read-only: they only read, or they change only
// the agent's own state (task list, memory).
func isFree(tool string) bool {
	switch tool {
	case "glob", "grep", "list_dir",
		"task", "todo_write", "remember", "recall", "forget", "skill", "ask", "current_time",
		"git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch",
		"git_commit_message":
		return true
	}
	return false
}

func sortedKeys(m map[string]Entry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
