// Package cli turns argv into a run of shiro: the terminal UI, headless
// mode or a subcommand. It is the only package that reads os.Args-shaped
// input; everything below it takes typed options.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/version"
)

// exitError carries an exit code up through cobra without printing twice.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// IO is the process's standard streams and environment, injected so tests
// can drive the CLI in-process.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	// IsTTYIn and IsTTYOut say whether stdin and stdout are terminals;
	// the terminal UI needs both.
	IsTTYIn, IsTTYOut bool
	// UI runs the terminal UI in this process; nil in the build without it
	// (see ui.go).
	UI UI
	// HandOff replaces this process with the build that has the terminal
	// UI; it is used when UI is nil.
	HandOff func() error
}

// Main runs shiro with args (without the program name) on the real process
// streams and returns the exit code.
// The terminal UI is handed off to the shiro-tui program.
func Main(args []string) int {
	return mainWith(args, func(stdio *IO) { stdio.HandOff = newHandOff().start })
}

// mainWith runs shiro on the real process streams; with sets how this build
// reaches the terminal UI.
func mainWith(args []string, with func(*IO)) int {
	stdio := IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd, IsTTYIn: isTerminal(os.Stdin), IsTTYOut: isTerminal(os.Stdout)}
	with(&stdio)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, stdio)
}

// Run executes shiro with args and returns the exit code.
func Run(ctx context.Context, args []string, stdio IO) int {
	root := CommandTree(stdio)
	root.SetArgs(normaliseResumeFlag(normalisePrintFlag(args)))
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	err := root.ExecuteContext(ctx)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(stdio.Err, "shiro: %v\n", err)
		return 1
	}
}

// normalisePrintFlag gives -p/--print its documented meaning: the next
// argument is the prompt unless it starts with "-", and a bare -p reads the
// prompt from stdin. pflag alone cannot express an optional value that may
// be separated by a space, so a bare -p becomes `-p -` here.
func normalisePrintFlag(args []string) []string {
	out := make([]string, 0, len(args)+1)
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			out = append(out, args[i+1:]...)
			break
		}
		if a != "-p" && a != "--print" {
			continue
		}
		if i+1 >= len(args) || (len(args[i+1]) > 1 && args[i+1][0] == '-') {
			out = append(out, "-")
		}
	}
	return out
}

func newRoot(stdio IO) *cobra.Command {
	var o runOptions
	root := &cobra.Command{
		Use:           "shiro [prompt]",
		Short:         "A terminal coding agent that reads, edits, runs and answers — behind one safety gate.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), version.String())
				return err
			}
			o.args = args
			return runMain(cmd.Context(), stdio, o)
		},
	}
	// --version is ours, not cobra's: cobra prints a version without a
	// template only in its own "NAME version X" form, and any template
	// links text/template, whose reflective method calls make the linker
	// keep every exported method of every type (a 88 MB binary instead
	// of 51). cmd/shiro's TestBinaryKeepsDeadCodeElimination guards this.
	f := root.Flags()
	f.StringVarP(&o.print, "print", "p", "", "run headless: PROMPT, or - (or nothing) to read it from stdin")
	outputFlags(f, &o)
	f.StringArrayVarP(&o.images, "image", "i", nil, "with -p: send this picture (png, jpg, gif, webp) with the prompt; repeat for more")
	f.StringVar(&o.inputFormat, "input-format", "text", "with -p: text, or stream-json to read one {\"type\":\"user\",\"text\":…} turn per stdin line")
	f.StringVar(&o.agent, "agent", "", "agent variant: default, quick, deep, plan or review")
	f.StringVar(&o.think, "think", "", "thinking level: off, low, medium, high or max")
	f.StringVar(&o.provider, "provider", "", "provider preset (anthropic, openai, openrouter, groq, deepseek, xai, ollama, lmstudio, custom-openai, custom-anthropic, replay)")
	f.StringVar(&o.model, "model", "", "model id")
	f.StringVar(&o.baseURL, "base-url", "", "API root including /v1")
	f.StringVar(&o.cassette, "cassette", "", "with --provider replay: the cassette to answer from")
	f.StringVar(&o.record, "record", "", "record every model response to this cassette file (JSON lines)")
	f.BoolVar(&o.yolo, "yolo", false, "approve every call that would ask; guards, hooks and deny rules still apply")
	f.BoolVar(&o.noPlugins, "no-plugins", false, "disable every plugin, the guard included, and hooks")
	f.BoolVar(&o.noSkills, "no-skills", false, "load no skills")
	f.BoolVar(&o.noMemory, "no-memory", false, "neither load nor write project memory")
	f.BoolVar(&o.noInstructions, "no-instructions", false, "ignore AGENTS.md, CLAUDE.md, .shiro.md, TODO.md and ROADMAP.md")
	f.BoolVar(&o.noSubagent, "no-subagent", false, "do not offer the task tool")
	f.BoolVar(&o.initScaffold, "init-scaffold", false, "write TODO.md, ROADMAP.md and docs/README.md at the git root if missing, and exit")
	mcpFlags(f, &o)
	sessionFlags(f, &o)
	sandboxFlag(f, &o)
	f.IntVar(&o.maxSteps, "max-steps", 0, "the most model calls one turn may make (default: the agent's own, 50 for the default agent)")
	f.BoolP("version", "v", false, "print the version and exit")

	root.AddCommand(newACPCommand(stdio), newDemoCommand(stdio), newExplainCommand(stdio), newHooksCommand(stdio),
		newDescribeCommand(stdio, "plugins", "List the active plugins in chain order and every name or manifest that did not load", app.DescribePlugins),
		newDescribeCommand(stdio, "skills", "List the skills: name, origin and description", app.DescribeSkills),
		newRegistryCommand(stdio), newMCPCommand(stdio),
		newSessionsCommand(stdio), newSandboxCommand(stdio), newConfigCommand(stdio), newLSPCommand(stdio), newToolsCommand(stdio))
	return root
}

// isTerminal asks the terminal driver itself: a character device is not
// enough, as /dev/null is one too (cron, CI, nohup give it as stdin).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(f.Fd())
}
