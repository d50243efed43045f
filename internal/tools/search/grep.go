package search

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of grep. Both backends apply all of them the same way.
const (
	grepMaxHits     = 200 // matching lines shown
	grepPerFile     = 200 // matching lines counted per file (rg --max-count)
	grepLineCut     = 300 // characters shown of a matching line
	grepTimeout     = 60 * time.Second
	grepMaxFileSize = 64 << 20 // larger files are not searched (rg --max-filesize)
)

type grepInput struct {
	Pattern        string `json:"pattern" jsonschema:"Regular expression (RE2 syntax)"`
	Include        string `json:"include,omitempty" jsonschema:"Glob of files to search, e.g. *.go or src/**/*.ts"`
	IgnoreCase     bool   `json:"ignoreCase,omitempty"`
	IncludeIgnored bool   `json:"includeIgnored,omitempty"`
}

func grepTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[grepInput]{
		Info: tool.Info{
			Name:        "grep",
			Description: "Search file contents with a regular expression. Returns `path:line: text`, sorted by path, at most 200 lines. .gitignore/.shiroignore'd files are skipped unless includeIgnored.",
			Guidance:    "grep: search file contents by regular expression; narrow with include (e.g. *.go).",
			Set:         tool.SetCore,
			Effect:      tool.Reads,
			Kind:        protocol.KindSearch,
			Subject:     tool.TextSubject,
		},
		Check: func(in *grepInput) error { return checkGrep(env, in) },
		Plan: func(in *grepInput) tool.Plan {
			title := in.Pattern
			if !matchesEverything(in.Include) {
				title += " in " + in.Include
			}
			return tool.Plan{Subjects: nonEmpty(in.Pattern), Title: fileop.Title(title)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *grepInput) (tool.Result, error) {
			return tool.TextOf(runGrepTool(ctx, env, in))
		},
	})
}

// grepQuery is a validated grep call.
type grepQuery struct {
	pattern        string
	re             *regexp.Regexp // for the Go walker: (?m), and (?i) if asked
	needle         needle         // the Go walker's prefilter
	include        *NamePattern   // nil searches every file
	ignoreCase     bool
	includeIgnored bool
}

// checkGrep refuses a call before it is judged when its pattern or include
// could never run: the same compilation newGrepQuery does, without the
// look at the file system that include's directory form needs.
func checkGrep(env *workspace.Env, in *grepInput) error {
	if _, err := compileGrep(in.Pattern, in.IgnoreCase); err != nil {
		return err
	}
	if matchesEverything(in.Include) {
		return nil
	}
	_, err := cleanPattern(env.Root, in.Include)
	return err
}

func runGrepTool(ctx context.Context, env *workspace.Env, in *grepInput) (string, error) {
	q, err := newGrepQuery(env, in)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, grepTimeout)
	defer cancel()
	col, err := runGrep(ctx, env, q)
	if errors.Is(err, context.DeadlineExceeded) {
		return "", tool.Failf("grep timed out after %s; narrow the pattern or set include.", grepTimeout)
	}
	if err != nil {
		return "", err
	}
	return tool.Cap(col.render()), nil
}

// compileGrep compiles pattern as the Go walker runs it.
func compileGrep(pattern string, ignoreCase bool) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, tool.Failf("pattern is required")
	}
	// Compile the pattern alone first so the error quotes it as given.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, tool.Failf("Invalid regex: %v", err)
	}
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, tool.Failf("Invalid regex: %v", err)
	}
	return re, nil
}

func newGrepQuery(env *workspace.Env, in *grepInput) (*grepQuery, error) {
	re, err := compileGrep(in.Pattern, in.IgnoreCase)
	if err != nil {
		return nil, err
	}
	q := &grepQuery{
		pattern: in.Pattern, re: re, needle: findNeedle(in.Pattern, in.IgnoreCase),
		ignoreCase: in.IgnoreCase, includeIgnored: in.IncludeIgnored,
	}
	if !matchesEverything(in.Include) {
		p, err := ParseNamePattern(env, in.Include)
		if err != nil {
			return nil, err
		}
		q.include = p
	}
	return q, nil
}

// runGrep searches with ripgrep when it is installed and falls back to the
// Go walker when rg is missing or fails for a reason other than the
// pattern.
func runGrep(ctx context.Context, env *workspace.Env, q *grepQuery) (*hitCollector, error) {
	if env.Ripgrep != "" {
		col := newHitCollector()
		err := grepRipgrep(ctx, env, q, col)
		var fallback *rgFailure
		if !errors.As(err, &fallback) {
			return col, err
		}
	}
	col := newHitCollector()
	return col, grepWalk(ctx, env, q, col)
}
