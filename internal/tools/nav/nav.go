// Package nav holds the tools that find one's way around code: tree (the
// shape of a directory), find_symbol (where a name is declared), outline
// (a file's declarations), read_symbol (one definition, with its doc
// comment) and env_info (the platform and the toolchains installed).
//
// The symbol tools read declarations with per-language line rules, not
// parsers: fast, dependency-free and good enough to jump to a definition.
// Every path goes through the workspace jail and every listing through
// workspace.Walk.
package nav

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Tools returns tree, find_symbol, outline, read_symbol and env_info
// working in env. Building them costs nothing: schemas are derived, and
// the language rules compiled, on first use.
func Tools(env *workspace.Env) []tool.Tool { return withRules(env, buildLanguages) }

// withRules builds the tools with the language rules build returns.
func withRules(env *workspace.Env, build func() []*language) []tool.Tool {
	// One set of rules for the symbol tools, compiled when one of them
	// first runs: the patterns take about 2 ms, which a session that never
	// looks for a symbol (or `shiro --version`) should not pay.
	langs := &rules{all: sync.OnceValue(build)}
	return []tool.Tool{
		treeTool(env),
		findSymbolTool(env, langs),
		outlineTool(env, langs),
		readSymbolTool(env, langs),
		envInfoTool(env),
	}
}

// maxTextFile is the largest file the symbol tools read whole.
const maxTextFile = 16 << 20

// textFile is a workspace file read whole for a text tool.
type textFile struct {
	abs, rel string
	info     fs.FileInfo
	data     []byte
}

// readTextFile resolves p through the jail and reads it, refusing what is
// not a regular text file of at most maxTextFile bytes.
func readTextFile(env *workspace.Env, p string) (textFile, error) {
	abs, info, err := statInJail(env, p)
	if err != nil {
		return textFile{}, err
	}
	f := textFile{abs: abs, rel: env.Rel(abs), info: info}
	switch {
	case f.info.IsDir():
		return f, tool.Failf("%s is a directory, not a file.", f.rel)
	case !f.info.Mode().IsRegular():
		return f, tool.Failf("%s is not a regular file (%s).", f.rel, f.info.Mode().Type())
	case f.info.Size() > maxTextFile:
		return f, tool.Failf("%s is %d bytes; files over %d MB are not read by this tool.", f.rel, f.info.Size(), maxTextFile>>20)
	}
	f.data, err = os.ReadFile(abs)
	if err != nil {
		return f, fmt.Errorf("read %s: %w", f.rel, err)
	}
	if workspace.IsBinary(f.data) {
		return f, tool.Failf("%s is a binary file, not text.", f.rel)
	}
	return f, nil
}

// statInJail resolves p in the jail and stats it, turning the common
// failures into messages the model can act on.
func statInJail(env *workspace.Env, p string) (abs string, fi fs.FileInfo, err error) {
	abs, err = env.Resolve(p)
	if err != nil {
		return "", nil, err
	}
	fi, err = os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, nil, tool.Failf("No such file: %s", env.Rel(abs))
	}
	if err != nil {
		return abs, nil, fmt.Errorf("%s: %w", env.Rel(abs), err)
	}
	return abs, fi, nil
}
