package tools

import (
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/tool"
)

// onDemandNames are the tools a session offers only once it asks for
// them (tool_search, or a call by name): each is either rarely needed or
// a narrower form of a tool that is always there (replace_lines of
// edit_file, git_log of bash, tree of list_dir). Leaving them out of the
// first request is most of what keeps it under 24 KB (issue 27). The
// file tools a session starts with, bash, the task list, memory's
// remember, ask, task and skill stay.
var onDemandNames = []string{
	"append_file", "bash_status", "bash_stop", "changed_files", "count_lines", "count_tokens",
	"current_time", "delete_file", "delete_lines", "env_info", "file_info", "find_files",
	"find_symbol", "forget", "git_blame", "git_branch", "git_commit_message", "git_diff",
	"git_log", "git_show", "git_status", "insert_lines", "json_query", "move_file",
	"outline", "prepend_file", "read_symbol", "recall", "recent_files", "replace_lines", "tree",
}

// OnDemand marks the rarely used tools of list as on demand
// (tool.Info.OnDemand) and returns the list with them marked; the others
// are returned as they are. It runs on the assembled list, since some of
// those tools come from plugins and the memory rather than from Builtin.
func OnDemand(list []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(list))
	for i, t := range list {
		if slices.Contains(onDemandNames, t.Info().Name) {
			t = onDemand(t)
		}
		out[i] = t
	}
	return out
}

// onDemand wraps a tool so that its Info says OnDemand; calls go to the
// tool itself.
func onDemand(t tool.Tool) tool.Tool {
	return &onDemandTool{Tool: t, info: sync.OnceValue(func() *tool.Info {
		info := *t.Info()
		info.OnDemand = true
		return &info
	})}
}

type onDemandTool struct {
	tool.Tool
	info func() *tool.Info
}

func (t *onDemandTool) Info() *tool.Info { return t.info() }

// Unwrap returns the tool itself, for what names its package (docs).
func (t *onDemandTool) Unwrap() tool.Tool { return t.Tool }
