// Package search holds the tools that find things in the workspace: grep
// (file contents, through ripgrep when it is installed and a Go walker when
// it is not), glob (paths by pattern), find_files (names by substring) and
// recent_files (newest first). Every listing goes through workspace.Walk,
// so they all agree on what the ignore rules hide, and grep withholds the
// lines of files that secrets.IsFile marks as holding credentials.
//
// The package also exports NamePattern, the include glob every tool that
// filters files by name reads the same way.
package search

import (
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Tools returns grep, glob, find_files and recent_files working in env.
// Building them costs nothing: schemas are derived on first use.
func Tools(env *workspace.Env) []tool.Tool {
	return []tool.Tool{
		grepTool(env),
		globTool(env),
		findFilesTool(env),
		recentFilesTool(env),
	}
}

// nonEmpty is the subject list of a call keyed by s: none when s is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
