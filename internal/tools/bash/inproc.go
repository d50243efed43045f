package bash

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// A line that bash would run without starting a program and without
// touching anything outside the shell (`true`, `echo done`, `a=1; echo
// $a`) runs in shiro's own process, with mvdan.cc/sh's interpreter: bash
// runs such a line without a process too, and starting bash, a helper and
// a sandbox for it costs several milliseconds of CPU for nothing that
// needs containing. The classifier below accepts only what it can show
// the interpreter does exactly as bash would; anything else, and anything
// unsure, takes the normal path. The interpreter is also given handlers
// that refuse every program, file, folder and stat, so a gap in the
// classifier still starts nothing and opens nothing: the line then falls
// back to bash, having had no effect.

// pureLine is a command line that may run in-process.
type pureLine struct {
	file *syntax.File
	// environ is the command environment the line was checked against;
	// nil when it expands no name, and then any will do.
	environ []string
	dir     string
}

// pureLineOf returns command parsed when it may run in-process in env,
// else nil. Only bash lines qualify: another shell's echo may differ.
func pureLineOf(env *workspace.Env, command string) *pureLine {
	// The parser takes some control characters (\r) as blanks where bash
	// does not.
	if env == nil || filepath.Base(shellName(env)) != "bash" || !utf8.ValidString(command) ||
		strings.ContainsFunc(command, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
		return nil
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	// The command environment is the shell's with entries taken out and a
	// few harmless ones set, so what bash would read is looked for there.
	if bashReadsEnviron(env.ShellEnviron()) {
		return nil
	}
	c := &pureCheck{environ: env.CommandEnviron, assigned: map[string][]string{}}
	if !c.stmts(file.Stmts) {
		return nil
	}
	return &pureLine{file: file, environ: c.list, dir: env.Root}
}

// runInProcess runs command in-process when it qualifies, giving the
// result bash would; ok is false when it does not and nothing was done.
// The output goes through the redaction as a command's does; a line that
// prints nothing has nothing to redact, so it does not wait for the
// workspace's secret scan.
func runInProcess(ctx context.Context, env *workspace.Env, command string, emit func(string)) (res tool.Result, ok bool) {
	line := pureLineOf(env, command)
	if line == nil || ctx.Err() != nil {
		return tool.Result{}, false
	}
	if line.environ == nil {
		line.environ = env.CommandEnviron()
	}
	var stdout bytes.Buffer
	exit, ok := line.run(ctx, &stdout)
	if !ok {
		return tool.Result{}, false
	}
	out := &foregroundOutput{emit: emit}
	if stdout.Len() > 0 {
		out.redact = newRedaction(ctx, env, out.keep)
		out.write(stdoutStream, stdout.Bytes())
		out.flush()
	}
	return out.result(exit, ""), true
}

// errOutside is what every handler to the outside answers.
var errOutside = errors.New("not available to a line run in-process")

// run interprets the line with stdout to w; ok is false when anything
// reached for the outside, wrote to stderr or failed, and the line must
// then run in bash. The handlers run on the interpreter's goroutine only:
// accepted lines start no background job.
func (l *pureLine) run(ctx context.Context, w io.Writer) (exit int, ok bool) {
	var stderr bytes.Buffer
	reached := false
	refuse := func() error {
		reached = true
		return errOutside
	}
	r, err := interp.New(
		interp.Env(expand.ListEnviron(l.environ...)),
		interp.Dir(l.dir),
		interp.StdIO(nil, w, &stderr),
		interp.CallHandler(func(_ context.Context, args []string) ([]string, error) {
			if !pureBuiltin(args[0]) {
				return nil, refuse()
			}
			return args, nil
		}),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(context.Context, []string) error { return refuse() }
		}),
		interp.OpenHandler(func(context.Context, string, int, os.FileMode) (io.ReadWriteCloser, error) { return nil, refuse() }),
		interp.ReadDirHandler2(func(context.Context, string) ([]fs.DirEntry, error) { return nil, refuse() }),
		interp.StatHandler(func(context.Context, string, bool) (fs.FileInfo, error) { return nil, refuse() }),
		interp.AccessHandler(func(context.Context, string, interp.AccessMode) error { return refuse() }),
	)
	if err != nil {
		return 0, false
	}
	err = r.Run(ctx, l.file)
	var status interp.ExitStatus
	switch {
	case err == nil:
	case errors.As(err, &status):
		exit = int(status)
	default:
		return 0, false
	}
	return exit, !reached && stderr.Len() == 0
}

// pureBuiltin reports whether name is a command a pure line may run.
func pureBuiltin(name string) bool {
	switch name {
	case "true", "false", ":", "echo", "exit":
		return true
	}
	return false
}
