package search

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// NamePattern is a glob as glob, grep's include and the other tools that
// take an include read it. With a '/' it is matched against the whole path
// from the workspace root; without one, against the file name at any
// depth, as in .gitignore and ripgrep's -g (so `*.go` finds every Go file,
// and `cmd/*.go` only those in cmd/). `**` crosses directories; {a,b},
// [a-z] and \ escapes work as in doublestar.
type NamePattern struct {
	glob   string
	byName bool
}

// GlobPattern reads glob, relative to the workspace root and already
// accepted by doublestar.ValidatePattern, as a NamePattern.
func GlobPattern(glob string) *NamePattern {
	if rest, ok := strings.CutPrefix(glob, "**/"); ok && !strings.Contains(rest, "/") && rest != "**" {
		// **/x matches x at any depth, which is what a bare x means here.
		return &NamePattern{glob: rest, byName: true}
	}
	return &NamePattern{glob: glob, byName: !strings.Contains(glob, "/")}
}

// ParseNamePattern checks a pattern from the model and reads it as a
// NamePattern, the way glob and grep do. A directory (dir/, or the path of
// an existing directory) stands for every file below it.
func ParseNamePattern(env *workspace.Env, p string) (*NamePattern, error) {
	p, err := cleanPattern(env.Root, p)
	if err != nil {
		return nil, err
	}
	// A directory, written as dir/ or as a plain existing path, means
	// everything in it.
	if strings.HasSuffix(p, "/") {
		p += "**"
	} else if !strings.ContainsAny(p, "*?[{\\") {
		if fi, err := os.Stat(filepath.Join(env.Root, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			p += "/**"
		}
	}
	return GlobPattern(p), nil
}

// cleanPattern is the part of ParseNamePattern that needs no file system,
// so a call can be refused before it is judged: it makes an absolute
// pattern relative to root and refuses what leaves the workspace or is not
// a glob.
func cleanPattern(root, p string) (string, error) {
	orig := p
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", tool.Failf("Pattern %s is outside the workspace; patterns are matched from the workspace root.", orig)
		}
		p = filepath.ToSlash(rel)
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" || p == "." {
		return "", tool.Failf("Empty glob pattern; try **/* or *.go")
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", tool.Failf("Pattern %s uses ..; patterns are matched inside the workspace only.", orig)
	}
	if !doublestar.ValidatePattern(p) {
		return "", tool.Failf("Invalid glob pattern: %s", orig)
	}
	return p, nil
}

// ParseInclude reads an optional include glob of a tool that searches the
// whole workspace (find_symbol, count_lines). Unlike ParseNamePattern it
// needs no workspace: the pattern is taken as written, and nil (with no
// error) stands for every file.
func ParseInclude(p string) (*NamePattern, error) {
	p = strings.TrimPrefix(p, "./")
	if matchesEverything(p) {
		return nil, nil
	}
	if !doublestar.ValidatePattern(p) {
		return nil, tool.Failf("Invalid glob pattern: %s", p)
	}
	return GlobPattern(p), nil
}

// matchesEverything reports the include patterns that select every file,
// which searches treat as no filter at all.
func matchesEverything(p string) bool {
	return p == "" || p == "*" || p == "**" || p == "**/*"
}

// Match reports whether the file at rel (slash-separated, from the root)
// matches. A nil pattern matches every file.
func (n *NamePattern) Match(rel string) bool {
	if n == nil {
		return true
	}
	if n.byName {
		return doublestar.MatchUnvalidated(n.glob, path.Base(rel))
	}
	return doublestar.MatchUnvalidated(n.glob, rel)
}

// walkBounds narrows the walk for a path pattern: the directory its fixed
// leading part names, and how deep below it a match can be (0 when `**`
// or braces make the depth open).
func (n *NamePattern) walkBounds() (base string, depth int) {
	if n.byName {
		return ".", 0
	}
	base, rest := doublestar.SplitPattern(n.glob)
	if strings.Contains(rest, "**") || strings.ContainsAny(rest, "{}") {
		return base, 0
	}
	return base, strings.Count(rest, "/") + 1
}
