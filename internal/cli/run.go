package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// runOptions are the root command's flags.
type runOptions struct {
	args                                                     []string
	print                                                    string
	json                                                     bool   // --json: stream-json
	outputFormat, outputSchema, lastMessage                  string // --output-format, --output-schema, -o
	inputFormat                                              string
	agent, think, provider, model, baseURL, cassette, record string
	yolo, noPlugins, noSkills, noMemory, noInstructions      bool
	noSubagent, initScaffold                                 bool
	noMCP, noLSP                                             bool
	mcpConfig                                                []string
	cont                                                     bool     // -c
	resume                                                   string   // -r
	sandbox                                                  string   // --sandbox
	approval                                                 string   // --approval
	mode                                                     string   // --permission-mode
	maxSteps                                                 int      // --max-steps
	images                                                   []string // -i
}

func (o runOptions) flags() config.Flags {
	return config.Flags{Provider: o.provider, Model: o.model, BaseURL: o.baseURL, Agent: o.agent, Think: o.think, Cassette: o.cassette, Sandbox: o.sandbox, MaxSteps: o.maxSteps, Approval: o.approval, Mode: o.mode}
}

func (o runOptions) appOptions(s app.Loaded) app.Options {
	return app.Options{
		Loaded: s, Yolo: o.yolo, NoPlugins: o.noPlugins, NoSkills: o.noSkills, NoMemory: o.noMemory,
		NoInstructions: o.noInstructions, NoSubagent: o.noSubagent,
		NoMCP: o.noMCP, MCPConfigFiles: o.mcpConfig, NoLSP: o.noLSP,
	}
}

func runMain(ctx context.Context, stdio IO, o runOptions) error {
	cwd, err := stdio.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the working directory: %w", err)
	}
	if o.initScaffold {
		return runInitScaffold(stdio, cwd, o)
	}
	headlessMode := o.print != "" || o.inputFormat != "text"
	if flag := o.outputFlagsUsed(); !headlessMode && flag != "" {
		return fmt.Errorf("%s goes with -p PROMPT (a headless run)", flag)
	}
	if !headlessMode && len(o.images) > 0 {
		return fmt.Errorf("-i/--image goes with -p PROMPT; in the terminal UI, name the picture with @path or paste its path")
	}
	if !headlessMode && stdio.UI == nil {
		// Before anything is loaded: the UI build loads it all again.
		return handOffUI(stdio)
	}
	loaded, err := app.Load(stdio.Getenv, cwd, o.flags())
	if err != nil {
		return err
	}
	if o.yolo {
		if err := loaded.CheckYolo(); err != nil {
			return err
		}
	}
	for _, w := range loaded.Warnings() {
		fmt.Fprintf(stdio.Err, "shiro: %s\n", w)
	}
	if !headlessMode {
		return runInteractive(ctx, stdio, o, loaded)
	}
	return runHeadless(ctx, stdio, o, loaded)
}

func runHeadless(ctx context.Context, stdio IO, o runOptions, loaded app.Loaded) (err error) {
	input, attended, err := headlessInput(stdio, loaded.Cwd, o)
	if err != nil {
		return err
	}
	output, err := o.headlessOutput(loaded.Cwd)
	if err != nil {
		return err
	}
	if output.format == headless.FormatJSON {
		// A run that cannot start still ends with its one object; the
		// error goes to stderr too, as in every format.
		defer func() {
			var exit exitError
			if err != nil && !errors.As(err, &exit) {
				_ = headless.WriteFailure(stdio.Out, err)
			}
		}()
	}
	// A slash command (`-p /cost`) calls no model and no tool: it needs
	// no key, and nothing is denied.
	commandOnly := o.inputFormat == "text" && headless.IsCommandLine(o.print)
	if loaded.Settings.NeedsKey() && !commandOnly {
		return errors.New(loaded.Settings.MissingKey(loaded.Paths.ConfigFile()))
	}
	if stdio.Getenv("GOGC") == "" {
		// A headless run is often one of many in a CI job: keep its heap
		// lean. Each step re-serialises the whole history (the SDK's encoder
		// allocates about 2.5 times the request body), so the default (GC at
		// twice the live heap) lets short-lived request bodies pile up. The
		// live heap is small, so collecting at +25% costs little CPU next
		// to the model's latency, and the peak drops by about a sixth.
		debug.SetGCPercent(25)
	}
	opts := o.appOptions(loaded)
	opts.Attended = attended
	if output.schema != nil {
		opts.OutputSchema = output.schema.Raw
	}
	a, done, err := o.open(ctx, opts, false)
	if err != nil {
		return err
	}
	defer done()
	if n := a.Sandbox.Notice(); n != "" && output.format == headless.FormatStreamJSON {
		// The notice event goes to stdout among the others; whoever
		// watches stderr sees it too (text mode prints it there already).
		fmt.Fprintf(stdio.Err, "shiro: %s\n", n)
	}
	if !o.yolo && !attended && !commandOnly {
		fmt.Fprintln(stdio.Err, headless.Warning)
	}
	code := headless.Run(ctx, a.Session, input, headless.Options{Format: output.format, Schema: output.schema, LastMessage: output.lastMessage, Out: stdio.Out, Err: stdio.Err})
	fmt.Fprint(stdio.Err, resumeHint(ctx, a))
	if code != 0 {
		return exitError{code: code}
	}
	return nil
}

// headlessInput decides where the turns come from: the -p value, stdin as
// one prompt, or stdin as stream-json ops. A stream-json client can answer
// approval requests, so its session is attended.
func headlessInput(stdio IO, cwd string, o runOptions) (headless.Input, bool, error) {
	switch o.inputFormat {
	case "stream-json":
		if o.print != "" && o.print != "-" {
			return nil, false, fmt.Errorf("--input-format stream-json reads turns from stdin; do not also pass a prompt to -p")
		}
		if len(o.images) > 0 {
			return nil, false, fmt.Errorf("-i/--image goes with -p PROMPT; with --input-format stream-json, give a turn's pictures in its \"images\"")
		}
		return headless.StreamJSON(stdio.In), true, nil
	case "text":
	default:
		return nil, false, fmt.Errorf("unknown --input-format %q: use text or stream-json", o.inputFormat)
	}
	prompt := o.print
	if prompt == "-" {
		if stdio.IsTTYIn {
			return nil, false, fmt.Errorf("-p needs a prompt: pass it after -p, or pipe it on stdin")
		}
		b, err := io.ReadAll(stdio.In)
		if err != nil {
			return nil, false, fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		prompt = strings.TrimSpace(string(b))
	}
	if len(o.args) > 0 {
		prompt = strings.TrimSpace(prompt + " " + strings.Join(o.args, " "))
	}
	if prompt == "" {
		return nil, false, fmt.Errorf("-p needs a prompt: pass it after -p, or pipe it on stdin")
	}
	var images []protocol.Image
	for _, path := range o.images {
		img, err := headless.LoadImage(cwd, path)
		if err != nil {
			return nil, false, fmt.Errorf("-i: %w", err)
		}
		images = append(images, img)
	}
	return headless.Prompt(prompt, images...), false, nil
}

// runInitScaffold writes the tracker files and exits. It says where it
// wrote them (outside a git repository that is the current directory) and
// that a prompt given with it was not run.
func runInitScaffold(stdio IO, cwd string, o runOptions) error {
	if workflow.GitRoot(cwd) == "" {
		fmt.Fprintf(stdio.Err, "shiro: %s is not in a git repository; writing the files here\n", cwd)
	}
	res, err := workflow.Scaffold(cwd)
	if err != nil {
		return err
	}
	for _, p := range res.Written {
		fmt.Fprintf(stdio.Out, "wrote %s\n", p)
	}
	for _, p := range res.Kept {
		fmt.Fprintf(stdio.Out, "left alone %s (already exists)\n", p)
	}
	if o.print != "" || len(o.args) > 0 {
		fmt.Fprintln(stdio.Err, "shiro: --init-scaffold only writes the files; the prompt was not run (run it without --init-scaffold)")
	}
	return nil
}
