// Package files holds the tools that read, write, list, move and delete
// workspace files (read_file, read_many_files, write_file, list_dir,
// move_file, delete_file) and the ones that describe them (file_info,
// count_lines, count_tokens, json_query).
//
// Every path is checked in the workspace jail, and every read and write
// goes through the workspace root's descriptor (workspace.Env's file
// operations), so a directory swapped for a symlink while a call runs
// cannot lead it outside. Writes are atomic: a temporary file beside the
// target, renamed over it.
package files

import (
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Tools returns the file tools working in env. Building them costs
// nothing: schemas are derived on first use.
func Tools(env *workspace.Env) []tool.Tool {
	return []tool.Tool{
		readFileTool(env),
		readManyTool(env),
		writeFileTool(env),
		listDirTool(env),
		moveFileTool(env),
		deleteFileTool(env),
		fileInfoTool(env),
		countLinesTool(env),
		countTokensTool(env),
		jsonQueryTool(env),
	}
}
