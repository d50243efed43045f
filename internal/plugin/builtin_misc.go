package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Time adds current_time, auto-approved: it reads only the clock now.
func Time(now func() time.Time) Plugin {
	if now == nil {
		now = time.Now
	}
	return Plugin{
		Name:        "time",
		Description: "adds current_time, because models are confidently wrong about the date",
		Tools:       []tool.Tool{currentTimeTool(now)},
		AutoApprove: []string{currentTimeName},
	}
}

const currentTimeName = "current_time"

// noInput is the input of a tool that takes no arguments.
type noInput struct{}

func currentTimeTool(now func() time.Time) tool.Tool {
	return tool.New(tool.Def[noInput]{
		Info: tool.Info{
			Name:        currentTimeName,
			Description: "The current date and time: ISO 8601 in UTC, then the local time with its zone.",
			Guidance:    "current_time: the date and time now; call it rather than guessing the date.",
			Set:         tool.SetNone,
			Effect:      tool.Reads,
			Kind:        protocol.KindOther,
			Subject:     tool.NoSubject,
		},
		Run: func(context.Context, tool.Runtime, *noInput) (tool.Result, error) {
			return tool.Text(FormatTime(now())), nil
		},
	})
}

// FormatTime renders current_time's result for n:
// `2026-03-01T09:30:00.000Z (local: Sun, 01 Mar 2026 10:30:00 CET +0100)`.
func FormatTime(n time.Time) string {
	return n.UTC().Format("2006-01-02T15:04:05.000Z07:00") + " (local: " + n.Format("Mon, 02 Jan 2006 15:04:05 MST -0700") + ")"
}

// Bell writes BEL to w when a turn ends, so a long turn can be left alone.
func Bell(w io.Writer) Plugin {
	return Plugin{
		Name:        "bell",
		Description: "rings the terminal bell when a turn ends",
		AfterTurn: func(context.Context, tool.TurnSummary) error {
			if w == nil {
				return nil
			}
			_, err := io.WriteString(w, "\a")
			return err
		},
	}
}

// formatTimeout bounds each formatter run.
const formatTimeout = 60 * time.Second

// Format runs the project's formatters after a turn that wrote files:
// gofmt -w on the Go files written, cargo fmt when Rust files were written
// in a Cargo project, and the package.json "format" script (through the
// package manager its lockfile names). Each runs with fixed arguments and a
// 60 s limit; a failure becomes a notice. The script is the workspace's,
// so run must contain it (Contained with the workspace's launcher); a nil
// run refuses to run anything, and each turn's notice says so.
func Format(run Runner) Plugin {
	if run == nil {
		run = refuseRunner
	}
	return Plugin{
		Name:        "format",
		Description: "runs the project's formatter (gofmt, cargo fmt, the package.json format script) after each turn",
		AfterTurn: func(ctx context.Context, t tool.TurnSummary) error {
			var errs []error
			for _, argv := range formatCommands(t) {
				if err := runFormatter(ctx, run, t.Cwd, argv); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		},
	}
}

// formatCommands decides which formatters a finished turn needs.
func formatCommands(t tool.TurnSummary) [][]string {
	if len(t.FilesWritten) == 0 {
		return nil
	}
	var goFiles []string
	rust := false
	for _, f := range t.FilesWritten {
		if !filepath.IsAbs(f) {
			f = filepath.Join(t.Cwd, f)
		}
		switch filepath.Ext(f) {
		case ".go":
			if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
				goFiles = append(goFiles, f)
			}
		case ".rs":
			rust = true
		}
	}
	var out [][]string
	if len(goFiles) > 0 {
		out = append(out, append([]string{"gofmt", "-w"}, goFiles...))
	}
	if rust && fileExists(filepath.Join(t.Cwd, "Cargo.toml")) {
		out = append(out, []string{"cargo", "fmt"})
	}
	if pm, ok := formatScript(t.Cwd); ok {
		out = append(out, []string{pm, "run", "format"})
	}
	return out
}

// formatScript reports whether package.json has a "format" script and
// which package manager runs it.
func formatScript(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", false
	}
	var pkg struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Scripts["format"] == nil {
		return "", false
	}
	for _, lock := range []struct{ file, pm string }{
		{"bun.lock", "bun"}, {"bun.lockb", "bun"}, {"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"},
	} {
		if fileExists(filepath.Join(dir, lock.file)) {
			return lock.pm, true
		}
	}
	return "npm", true
}

func runFormatter(ctx context.Context, run Runner, dir string, argv []string) error {
	ctx, cancel := context.WithTimeout(ctx, formatTimeout)
	defer cancel()
	out, err := run(ctx, dir, argv...)
	name := strings.Join(argv[:min(len(argv), 3)], " ")
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s did not finish within %s", name, formatTimeout)
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("%s: %s is not installed or not on PATH", name, argv[0])
	}
	if tail := lastLines(string(out), 5); tail != "" {
		return fmt.Errorf("%s: %w: %s", name, err, tail)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// The advisory plugins only add to the system prompt.

// ConventionalCommit asks for Conventional Commits messages.
func ConventionalCommit() Plugin {
	return Plugin{
		Name:        "conventional-commit",
		Description: "asks for commit messages in the Conventional Commits form",
		Appendix: "Write commit messages as Conventional Commits: `type(scope): summary`, where type is one of feat, " +
			"fix, docs, style, refactor, perf, test, build, ci or chore; the summary in the imperative, under 72 " +
			"characters, without a full stop. Add a body when the reason is not obvious, and a `BREAKING CHANGE:` " +
			"footer for incompatible changes.",
	}
}

// TestsFirst asks the model to work test-first.
func TestsFirst() Plugin {
	return Plugin{
		Name:        "tests-first",
		Description: "asks for a failing test before a change in behaviour",
		Appendix: "Work test-first. Before changing behaviour, write or update a test that states the new behaviour, " +
			"run it and watch it fail for the reason you expect; then change the code until it passes. For a bug, " +
			"first reproduce it in a test.",
	}
}

// SmallDiffs asks for small, focused changes.
func SmallDiffs() Plugin {
	return Plugin{
		Name:        "small-diffs",
		Description: "asks for small, focused changes",
		Appendix: "Keep each change small and about one thing: no drive-by reformatting, renames or refactors. When a " +
			"task needs a large change, propose the steps first and make them one at a time, running the checks " +
			"after each.",
	}
}
