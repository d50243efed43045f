// Package navtools provides the navigation tools (set `nav`: find_symbol,
// json_query) and the extra workspace tools (set `extra`: tree, file_info,
// find_files, recent_files, changed_files, outline, read_symbol, the line
// editing tools, count_lines, env_info, count_tokens and run_checks).
//
// Every path goes through the workspace jail, every listing through the
// ignore-aware tools.Walk, and every edit is written atomically.
package navtools

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/shiro-neko/shiro/internal/tools"
)

// Tools returns the nav and extra tools. env is the workspace used when a
// call carries none.
func Tools(env *tools.Env) []tools.Tool {
	return []tools.Tool{
		findSymbolTool{env: env},
		jsonQueryTool{env: env},
		treeTool{env: env},
		fileInfoTool{env: env},
		findFilesTool{env: env},
		recentFilesTool{env: env},
		changedFilesTool{env: env},
		outlineTool{env: env},
		readSymbolTool{env: env},
		lineTool{env: env, op: opInsert},
		lineTool{env: env, op: opDelete},
		lineTool{env: env, op: opReplace},
		lineTool{env: env, op: opAppend},
		lineTool{env: env, op: opPrepend},
		countLinesTool{env: env},
		envInfoTool{env: env},
		countTokensTool{env: env},
		newRunChecksTool(env),
	}
}

// maxTextFile is the largest file the text tools read whole.
const maxTextFile = 16 << 20

// textFile is a workspace file read whole for a text tool.
type textFile struct {
	abs, rel string
	info     fs.FileInfo
	data     []byte
}

// readTextFile resolves p through the jail and reads it, refusing what is
// not a regular text file of at most maxTextFile bytes.
func readTextFile(env *tools.Env, p string) (textFile, error) {
	if p == "" {
		return textFile{}, tools.Failf("path is required.")
	}
	abs, info, err := tools.StatInJail(env, p)
	if err != nil {
		return textFile{}, err
	}
	f := textFile{abs: abs, rel: env.Rel(abs), info: info}
	switch {
	case f.info.IsDir():
		return f, tools.Failf("%s is a directory, not a file.", f.rel)
	case !f.info.Mode().IsRegular():
		return f, tools.Failf("%s is not a regular file (%s).", f.rel, f.info.Mode().Type())
	case f.info.Size() > maxTextFile:
		return f, tools.Failf("%s is %d bytes; files over %d MB are not read by this tool.", f.rel, f.info.Size(), maxTextFile>>20)
	}
	f.data, err = os.ReadFile(abs)
	if err != nil {
		return f, fmt.Errorf("read %s: %w", f.rel, err)
	}
	if tools.IsBinary(f.data) {
		return f, tools.Failf("%s is a binary file, not text.", f.rel)
	}
	return f, nil
}

// cut shortens s to n characters, marking the cut with an ellipsis.
func cut(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}
