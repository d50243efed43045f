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

// namePattern is a glob as glob and grep's include read it. With a '/' it
// is matched against the whole path from the workspace root; without one,
// against the file name at any depth, as in .gitignore and ripgrep's -g
// (so `*.go` finds every Go file, and `cmd/*.go` only those in cmd/).
// `**` crosses directories; {a,b}, [a-z] and \ escapes work as in
// doublestar. A directory (dir/, or the path of an existing directory)
// stands for every file below it.
type namePattern struct {
	glob   string
	byName bool
}

func parseNamePattern(env *Env, p string) (namePattern, error) {
	orig := p
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(env.Root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return namePattern{}, failf("Pattern %s is outside the workspace; patterns are matched from the workspace root.", orig)
		}
		p = filepath.ToSlash(rel)
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" || p == "." {
		return namePattern{}, failf("Empty glob pattern; try **/* or *.go")
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return namePattern{}, failf("Pattern %s uses ..; patterns are matched inside the workspace only.", orig)
	}
	if !doublestar.ValidatePattern(p) {
		return namePattern{}, failf("Invalid glob pattern: %s", orig)
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
	if rest, ok := strings.CutPrefix(p, "**/"); ok && !strings.Contains(rest, "/") && rest != "**" {
		// **/x matches x at any depth, which is what a bare x means here.
		return namePattern{glob: rest, byName: true}, nil
	}
	return namePattern{glob: p, byName: !strings.Contains(p, "/")}, nil
}

// match reports whether the file at rel (slash-separated, from the root)
// matches.
func (n namePattern) match(rel string) bool {
	if n.byName {
		return doublestar.MatchUnvalidated(n.glob, path.Base(rel))
	}
	return doublestar.MatchUnvalidated(n.glob, rel)
}

// walkBounds narrows the walk for a path pattern: the directory its fixed
// leading part names, and how deep below it a match can be (0 when `**`
// or braces make the depth open).
func (n namePattern) walkBounds() (base string, depth int) {
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
	env, err := callEnv(call, t.env)
	if err != nil {
		return "", err
	}
	var in struct {
		Pattern        string `json:"pattern"`
		Limit          *int   `json:"limit"`
		IncludeIgnored bool   `json:"includeIgnored"`
	}
	if err := Decode(call, &in); err != nil {
		return "", err
	}
	limit := globDefaultLimit
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > globMaxLimit {
			return "", failf("limit must be from 1 to %d; got %d", globMaxLimit, *in.Limit)
		}
		limit = *in.Limit
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
		if d.IsDir() || !pat.match(rel) {
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
