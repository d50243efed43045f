package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// runOptions are the root command's flags.
type runOptions struct {
	args                                                     []string
	print                                                    string
	json                                                     bool
	inputFormat                                              string
	agent, think, provider, model, baseURL, cassette, record string
	yolo, noPlugins, noSkills, noMemory, noInstructions      bool
	noSubagent, initScaffold                                 bool
}

func (o runOptions) flags() config.Flags {
	return config.Flags{Provider: o.provider, Model: o.model, BaseURL: o.baseURL, Agent: o.agent, Think: o.think, Cassette: o.cassette}
}

func (o runOptions) appOptions(s app.Loaded) app.Options {
	return app.Options{
		Loaded: s, Yolo: o.yolo, NoPlugins: o.noPlugins, NoSkills: o.noSkills, NoMemory: o.noMemory,
		NoInstructions: o.noInstructions, NoSubagent: o.noSubagent,
	}
}

func runMain(ctx context.Context, stdio IO, o runOptions) error {
	cwd, err := stdio.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the working directory: %w", err)
	}
	if o.initScaffold {
		return runInitScaffold(stdio, cwd)
	}
	loaded, err := app.Load(stdio.Getenv, cwd, o.flags())
	if err != nil {
		return err
	}
	for _, w := range loaded.Warnings() {
		fmt.Fprintf(stdio.Err, "shiro: %s\n", w)
	}
	headlessMode := o.print != "" || o.inputFormat != "text"
	if !headlessMode {
		return runInteractive(ctx, stdio, o, loaded)
	}
	return runHeadless(ctx, stdio, o, loaded)
}

func runHeadless(ctx context.Context, stdio IO, o runOptions, loaded app.Loaded) error {
	prompts, err := headlessPrompts(stdio, o)
	if err != nil {
		return err
	}
	if loaded.Settings.NeedsKey() {
		return fmt.Errorf("no API key for %s: set %s (or SHIRO_API_KEY, or apiKey in %s)", loaded.Settings.Preset.ID, loaded.Settings.KeyVar, loaded.Paths.ConfigFile())
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
	opts.Headless = true
	opts.Approver = headless.Approver{Yolo: o.yolo}
	closeRecord, err := attachRecorder(&opts, o.record)
	if err != nil {
		return err
	}
	defer closeRecord()
	a, err := app.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	if !o.yolo {
		fmt.Fprintln(stdio.Err, headless.Warning)
	}
	code := headless.Run(ctx, a.Session, prompts, headless.Options{JSON: o.json, Out: stdio.Out, Err: stdio.Err})
	if code != 0 {
		return exitError{code: code}
	}
	return nil
}

// headlessPrompts decides where the turns come from: the -p value, stdin
// as one prompt, or stdin as stream-json turns.
func headlessPrompts(stdio IO, o runOptions) (func(func(string, error) bool), error) {
	switch o.inputFormat {
	case "stream-json":
		if o.print != "" && o.print != "-" {
			return nil, fmt.Errorf("--input-format stream-json reads turns from stdin; do not also pass a prompt to -p")
		}
		return headless.StreamJSON(stdio.In), nil
	case "text":
	default:
		return nil, fmt.Errorf("unknown --input-format %q: use text or stream-json", o.inputFormat)
	}
	prompt := o.print
	if prompt == "-" {
		if stdio.IsTTYIn {
			return nil, fmt.Errorf("-p needs a prompt: pass it after -p, or pipe it on stdin")
		}
		b, err := io.ReadAll(stdio.In)
		if err != nil {
			return nil, fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		prompt = strings.TrimSpace(string(b))
	}
	if len(o.args) > 0 {
		prompt = strings.TrimSpace(prompt + " " + strings.Join(o.args, " "))
	}
	if prompt == "" {
		return nil, fmt.Errorf("-p needs a prompt: pass it after -p, or pipe it on stdin")
	}
	return headless.Single(prompt), nil
}

// attachRecorder opens the --record cassette; the returned func closes it.
func attachRecorder(opts *app.Options, path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	opts.Record = f
	return func() { _ = f.Close() }, nil
}

func runInitScaffold(stdio IO, cwd string) error {
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
	return nil
}
