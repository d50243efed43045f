package docstest

import (
	"slices"
	"strings"
)

// The lists below are what the checks cannot tell apart from a claim about
// shiro: each entry says what the text names instead. An entry needs a
// reason; a claim about shiro never belongs here.

// foreignFlags are other programs' options that docs write on their own,
// in backticks: the guard's and the git tools' descriptions of what they
// look for.
func foreignFlags() map[string]string {
	const (
		guardGit = "a git option the guard or a plugin judges (docs/plugins.md)"
		guardRm  = "an rm option the guard judges (docs/plugins.md)"
		gitTools = "an option the git tools pass to git (docs/tools.md)"
	)
	return map[string]string{
		"force": guardGit, "forc": guardGit, "force-with-lease": guardGit, "force-if-includes": guardGit, "discard-changes": guardGit,
		"mirror": guardGit, "delete": guardGit, "prune": guardGit, "dry-run": guardGit, "all": guardGit,
		"global": guardGit, "system": guardGit, "get": guardGit, "list": guardGit, "config-env": guardGit,
		"recursive": guardRm, "rec": guardRm, "no-preserve-root": guardRm,
		"execute":  "a database client's option the guard reads (docs/plugins.md)",
		"relative": gitTools, "no-pager": gitTools, "no-ext-diff": gitTools, "no-textconv": gitTools,
	}
}

// derivedState are files shiro keeps beside a path of config.Paths, by
// the suffix they add to it.
func derivedState() map[string]string {
	return map[string]string{
		".lock": "the lock beside a file every shiro process may write (fsutil), such as hooks.json.lock",
	}
}

// projectEntries are what shiro reads in a project's .shiro folder, each
// with where; TestProjectPathsAreRead proves each one is read.
func projectEntries() map[string]string {
	return map[string]string{
		"config.json": "the project's config (app.Load)",
		"hooks":       "project hooks (app: hooks.Load)",
		"skills":      "project skills (app: skills.Load)",
		"plugins":     "project manifest plugins (app: plugin.LoadManifests)",
		"commands":    "project custom commands (commands: Set.Refresh)",
		"tools":       "project tool manifests (app: Loaded.ManifestTools)",
	}
}

// uiCommands are the terminal UI's own slash commands, which it handles
// without the session (internal/tui uiCommands).
func uiCommands() map[string]string {
	return map[string]string{
		"exit": "the terminal UI quits",
		"copy": "the terminal UI copies the last answer with OSC 52",
		"quit": "/exit's alias",
		"?":    "/help's alias",
	}
}

// notCommands are spans that start with a slash and are not commands.
func notCommands() map[string]string {
	return map[string]string{
		"v1":   "the API path segment a base URL includes (docs/configuration.md)",
		"tmp":  "the system's temp folder, which commands see replaced (docs/sandbox.md)",
		"proc": "the kernel's process file system (docs/sandbox.md)",
	}
}

// notTools are snake_case names in the docs that are not tools.
func notTools() map[string]string {
	const hookField = "a field of the JSON a hook reads (docs/hooks.md)"
	const resultField = "a member of --output-format json's result object (docs/headless.md)"
	const resultSubtype = "a subtype of --output-format json's result object (docs/headless.md)"
	const searchWire = "a block, item or annotation type of a provider's web search wire (docs/tools.md)"
	const statusField = "a field of the JSON a status line command reads (docs/tui.md)"
	return map[string]string{
		"transcript_path":        "a field of the JSON a Claude Code hook or status line command reads (docs/claude-code.md)",
		"permission_mode":        statusField,
		"web_search_20250305":    searchWire,
		"server_tool_use":        searchWire,
		"web_search_tool_result": searchWire,
		"web_search_call":        searchWire,
		"url_citation":           searchWire,
		"web_search_requests":    "a usage field of Anthropic's wire, the searches it charges (docs/cost.md)",
		"pause_turn":             "a stop reason of Anthropic's wire (docs/tools.md)",
		"pre_tool":               "a hook kind (docs/hooks.md)",
		"after_turn":             "a hook kind (docs/hooks.md)",
		"post_tool":              "a hook kind (docs/hooks.md)",
		"user_prompt":            "a hook kind (docs/hooks.md)",
		"subagent_stop":          "a hook kind (docs/hooks.md)",
		"session_start":          "a hook kind (docs/hooks.md)",
		"session_end":            "a hook kind (docs/hooks.md)",
		"pre_compact":            "a hook kind (docs/hooks.md)",
		"hook_event_name":        "a field of the JSON a Claude Code hook reads (docs/claude-code.md)",
		"tool_input":             "a field of the JSON a Claude Code hook reads (docs/claude-code.md)",
		"tool_name":              "a field of the JSON a Claude Code hook reads (docs/claude-code.md)",
		"tool_response":          "a field of the JSON a Claude Code hook reads (docs/claude-code.md)",
		"stop_hook_active":       "a field of the JSON a Claude Code hook reads (docs/claude-code.md)",
		"file_path":              "a field of the JSON a Claude Code hook reads (docs/claude-code.md)",
		"session_id":             hookField,
		"tool_call_id":           hookField,
		"tools_called":           hookField,
		"files_written":          hookField,
		"input_tokens":           hookField,
		"output_tokens":          hookField,
		"cache_read_tokens":      hookField,
		"cache_control":          "Anthropic's request field (docs/prompt-caching.md)",
		"sqlite3_prepare":        "SQLite's C function that parses a statement (docs/performance.md)",
		"prompt_cache_key":       "OpenAI's request field (docs/prompt-caching.md)",
		"max_tokens":             "Anthropic's request field (docs/cost.md)",
		"npm_config_cache":       "npm's environment variable for its cache (docs/sandbox.md)",
		"npm_config_store_dir":   "pnpm's environment variable for its store (docs/sandbox.md)",
		"end_turn":               "an Agent Client Protocol stop reason (docs/acp.md)",
		"max_turn_requests":      "an Agent Client Protocol stop reason (docs/acp.md)",
		"agent_servers":          "Zed's settings key (docs/acp.md)",
		"node_modules":           "a directory the walks skip",
		"id_rsa":                 "a private key file's name",
		"id_ed25519":             "a private key file's name",
		"go_test":                "an example memory query (docs/memory.md)",
		"in_progress":            "a task's status (todo_write)",
		// --output-format json's result object (docs/headless.md).
		"structured_output":                   resultField,
		"is_error":                            resultField,
		"num_turns":                           resultField,
		"duration_ms":                         resultField,
		"stop_reason":                         resultField,
		"total_cost_usd":                      resultField,
		"unpriced_models":                     resultField,
		"cache_creation_input_tokens":         resultField,
		"cache_read_input_tokens":             resultField,
		"error_during_execution":              resultSubtype,
		"error_max_budget_usd":                resultSubtype,
		"error_max_structured_output_retries": resultSubtype,
		"error_max_turns":                     resultSubtype,
		"response_format":                     "OpenAI chat completions' request field (docs/headless.md)",
		"json_schema":                         "OpenAI's structured-output format type (docs/headless.md)",
		"final_answer":                        "the name shiro gives the --output-schema format on the wire (docs/headless.md)",
	}
}

func sortedKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
