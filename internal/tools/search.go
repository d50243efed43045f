package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Limits of glob.
const (
	globDefaultLimit = 200
	globMaxLimit     = 1000
)

// NamePattern is a glob as glob and grep's include read it. With a '/' it
// is matched against the whole path from the workspace root; without one,
// against the file name at any depth, as in .gitignore and ripgrep's -g
// (so `*.go` finds every Go file, and `cmd/*.go` only those in cmd/).
// `**` crosses directories; {a,b}, [a-z] and \ escapes work as in
// doublestar.
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

// parseNamePattern checks a pattern from the model and reads it as a
// NamePattern. A directory (dir/, or the path of an existing directory)
// stands for every file below it.
func parseNamePattern(env *Env, p string) (*NamePattern, error) {
	orig := p
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(env.Root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, Failf("Pattern %s is outside the workspace; patterns are matched from the workspace root.", orig)
		}
		p = filepath.ToSlash(rel)
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" || p == "." {
		return nil, Failf("Empty glob pattern; try **/* or *.go")
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return nil, Failf("Pattern %s uses ..; patterns are matched inside the workspace only.", orig)
	}
	if !doublestar.ValidatePattern(p) {
		return nil, Failf("Invalid glob pattern: %s", orig)
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

// ---- glob ----

type globTool struct{ env *Env }

const globSchema = `{"type":"object","properties":{` +
	`"pattern":{"type":"string","description":"e.g. **/*_test.go, src/**/*.ts; no / matches names at any depth"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":1000,"description":"Max paths (default 200)"},` +
	`"includeIgnored":{"type":"boolean"}},` +
	`"required":["pattern"],"additionalProperties":false}`

func (globTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "glob",
		Description: "Find files by glob pattern, sorted by path. .gitignore/.shiroignore'd files are skipped unless includeIgnored.",
		Schema:      json.RawMessage(globSchema),
	}
}

func (globTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Guidance: "glob: find files by name or path pattern, e.g. **/*_test.go.",
		Subjects: patternField,
	}
}

func (t globTool) Run(ctx context.Context, call Call) (string, error) {
	var in struct {
		Pattern        string `json:"pattern"`
		Limit          *int   `json:"limit"`
		IncludeIgnored bool   `json:"includeIgnored"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	limit, err := IntArg("limit", in.Limit, globDefaultLimit, 1, globMaxLimit)
	if err != nil {
		return "", err
	}
	pat, err := parseNamePattern(env, in.Pattern)
	if err != nil {
		return "", err
	}
	base, depth := pat.walkBounds()
	if base != "." {
		// A fixed leading part that names no directory matches nothing;
		// one that leads out of the workspace is refused by the jail.
		abs, err := env.Resolve(base)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "No files matched.", nil
		}
	}
	var found []string
	total := 0
	err = Walk(ctx, env, base, WalkOptions{IncludeIgnored: in.IncludeIgnored, MaxDepth: depth}, func(rel string, d fs.DirEntry) error {
		if d.IsDir() || !pat.Match(rel) {
			return nil
		}
		total++
		if len(found) < limit {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if total == 0 {
		return "No files matched.", nil
	}
	out := strings.Join(found, "\n")
	if total > len(found) {
		out += fmt.Sprintf("\n[%d of %d files shown; narrow the pattern or raise limit]", len(found), total)
	}
	return Cap(out), nil
}
