package search

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// rgFailure means ripgrep could not do the search for a reason that is not
// the pattern's fault; grep then runs the Go walker instead.
type rgFailure struct{ err error }

func (f *rgFailure) Error() string { return "ripgrep failed: " + f.err.Error() }
func (f *rgFailure) Unwrap() error { return f.err }

// rgArgs builds ripgrep's fixed argument list. Its ignore handling is made
// as close to Walk's as its flags allow: .gitignore files at and below the
// root and .git/info/exclude, whether or not this is a git repository; not
// parent directories' files, the global gitignore, .ignore or .rgignore,
// which the walker does not read either; hidden files included; .git and
// node_modules always out. Ripgrep does not know .shiroignore, and its -g
// globs override ignore rules, so every path it prints is checked again
// by grepRipgrep against the walker's own rules: what rg adds on top is
// only speed.
func rgArgs(q *grepQuery) []string {
	args := []string{
		"--no-config", // a user's RIPGREP_CONFIG_PATH must not change the output format
		"--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot",
		"--hidden",
		"--line-number", "--with-filename", "--no-heading", "--null",
		"--color", "never", "--no-messages",
		"--max-count", strconv.Itoa(grepPerFile),
		"--max-filesize", strconv.Itoa(grepMaxFileSize),
		// A matching line of a minified file can be megabytes long; rg sends
		// only its start, which is more than the grepLineCut characters
		// shown (4 bytes per character at most).
		"--max-columns", strconv.Itoa(grepLineCut * 4), "--max-columns-preview",
	}
	if q.includeIgnored {
		args = append(args, "--no-ignore")
	}
	if q.ignoreCase {
		args = append(args, "--ignore-case")
	} else {
		args = append(args, "--case-sensitive")
	}
	if inc := q.include; inc != nil {
		if inc.byName && !strings.ContainsAny(inc.glob, ":,") {
			// A file type filters without overriding ignore files, unlike -g.
			args = append(args, "--type-add", "shiroinclude:"+inc.glob, "--type", "shiroinclude")
		} else {
			args = append(args, "--glob", inc.glob)
		}
	}
	// Later globs win, so these exclusions hold whatever include says.
	args = append(args, "--glob", "!.git", "--glob", "!node_modules")
	return append(args, "--regexp", q.pattern, "--", ".")
}

// grepRipgrep runs rg in the workspace root and feeds its matches, checked
// against the walker's ignore rules and the include pattern, to col. It
// returns an *rgFailure when the Go walker should take over.
//
// rg runs as every other program does: through the workspace's Launcher
// (the sandbox) with the scrubbed command environment. Its arguments are
// fixed and --no-config keeps a config file from adding --pre or
// --search-zip (which run programs), but the rg that runs is whichever
// PATH named when the session started, and PATH may lead into the
// workspace. With a helper waiting, the launch costs about what a bare
// start does (docs/sandbox.md).
func grepRipgrep(ctx context.Context, env *workspace.Env, q *grepQuery, col *hitCollector) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	var stderr rgStderrBuffer
	p, err := proc.Start(ctx, proc.Spec{
		Argv: append([]string{env.Ripgrep}, rgArgs(q)...),
		Dir:  env.Root,
		Env:  env.CommandEnviron(),
		// Write blocks until the parser has taken the bytes, so rg is held
		// back by a full pipe as it would be reading a pipe itself.
		Stdout:     proc.Stream(func(b []byte) { _, _ = pw.Write(b) }),
		Stderr:     proc.Stream(func(b []byte) { _, _ = stderr.Write(b) }),
		NewSession: true,
		Launcher:   env.Launcher,
	})
	if err != nil {
		return &rgFailure{err}
	}
	waited := make(chan proc.Result, 1)
	go func() {
		res := p.Wait()
		// Stream is never called once Wait has returned: this is the end.
		_ = pw.Close()
		waited <- res
	}()
	parseErr := readRipgrep(pr, env, q, col)
	if parseErr != nil {
		// Stop rg, and let a Write blocked on the pipe return.
		cancel()
		_ = pr.CloseWithError(parseErr)
	}
	res := <-waited
	switch {
	case ctx.Err() != nil && parseErr == nil:
		return ctx.Err()
	case parseErr != nil:
		return &rgFailure{parseErr}
	case res.Stopped != nil:
		return &rgFailure{res.Stopped}
	case res.Exit.Code == 0 || res.Exit.Code == 1:
		return nil // 1: no matches
	case isRegexError(stderr.String()):
		return tool.Failf("Invalid regex: %s", strings.TrimSpace(stderr.String()))
	}
	return &rgFailure{fmt.Errorf("%s: %s", res.Exit, strings.TrimSpace(stderr.String()))}
}

// readRipgrep parses rg's `path NUL line:text` lines.
func readRipgrep(r interface{ Read([]byte) (int, error) }, env *workspace.Env, q *grepQuery, col *hitCollector) error {
	var vis *workspace.Visibility
	if !q.includeIgnored {
		vis = workspace.NewVisibility(env.Root)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	lastPath, perFile := "", 0
	for sc.Scan() {
		line := sc.Bytes()
		nul := bytes.IndexByte(line, 0)
		if nul < 0 {
			continue // a notice such as "binary file matches", not a hit
		}
		rest := line[nul+1:]
		colon := bytes.IndexByte(rest, ':')
		if colon < 0 {
			continue
		}
		lineNo, err := strconv.Atoi(string(rest[:colon]))
		if err != nil || lineNo < 1 {
			continue
		}
		path := filepath.ToSlash(strings.TrimPrefix(string(line[:nul]), "./"))
		if path != lastPath {
			lastPath, perFile = path, 0
		}
		if vis != nil && !vis.File(path) {
			continue
		}
		if q.include != nil && !q.include.Match(path) {
			continue
		}
		text := bytes.TrimSuffix(rest[colon+1:], []byte(" [... omitted end of long line]"))
		col.add(path, lineNo, text)
		if perFile++; perFile == grepPerFile {
			col.markCapped(path)
		}
	}
	return sc.Err()
}

// isRegexError recognises ripgrep's complaint about the pattern itself.
func isRegexError(stderr string) bool {
	return strings.Contains(stderr, "regex parse error") ||
		strings.Contains(stderr, "error parsing regex") ||
		strings.Contains(stderr, "not allowed in a regex") ||
		strings.Contains(stderr, "regex could not be compiled")
}

// rgStderrBuffer keeps the first 4 KiB written to it.
type rgStderrBuffer struct{ b bytes.Buffer }

func (l *rgStderrBuffer) Write(p []byte) (int, error) {
	if room := 4096 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (l *rgStderrBuffer) String() string { return l.b.String() }
