package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/shiro-neko/shiro/internal/headless"
)

// outputFlags adds what a headless run prints and writes: --output-format
// (--json is its stream-json), --output-schema and -o.
func outputFlags(f *pflag.FlagSet, o *runOptions) {
	f.BoolVar(&o.json, "json", false, "with -p: print one JSON event per line (--output-format stream-json)")
	f.StringVar(&o.outputFormat, "output-format", "", "with -p: text (the default), json (one result object at the end) or stream-json (one event per line)")
	f.StringVar(&o.outputSchema, "output-schema", "", "with -p: the final answer must validate against the JSON Schema in this file")
	f.StringVarP(&o.lastMessage, "output-last-message", "o", "", "with -p: write the final answer to this file when the run succeeds")
}

// headlessOutput is the run's output, checked before anything is loaded
// or sent: the format, the schema (a bad file stops the run here, before
// any model call) and the -o path.
type headlessOutput struct {
	format      headless.Format
	schema      *headless.Schema
	lastMessage string
}

// outputFlagsUsed says whether any flag that only a headless run reads
// was given, for refusing them without -p.
func (o runOptions) outputFlagsUsed() string {
	switch {
	case o.json:
		return "--json"
	case o.outputFormat != "":
		return "--output-format"
	case o.outputSchema != "":
		return "--output-schema"
	case o.lastMessage != "":
		return "-o/--output-last-message"
	}
	return ""
}

func (o runOptions) headlessOutput(cwd string) (headlessOutput, error) {
	out := headlessOutput{format: headless.FormatText}
	if o.outputFormat != "" {
		f, err := headless.ParseFormat(o.outputFormat)
		if err != nil {
			return out, err
		}
		if o.json && f != headless.FormatStreamJSON {
			return out, fmt.Errorf("--json is --output-format stream-json; it cannot go with --output-format %s", f)
		}
		out.format = f
	} else if o.json {
		out.format = headless.FormatStreamJSON
	}
	if o.outputSchema != "" {
		if o.inputFormat != "text" {
			return out, fmt.Errorf("--output-schema checks the answer to one -p prompt; it cannot go with --input-format %s", o.inputFormat)
		}
		if headless.IsCommandLine(o.print) {
			return out, fmt.Errorf("--output-schema checks the model's answer; %s is a command, not a prompt", o.print)
		}
		s, err := headless.LoadSchema(cwd, o.outputSchema)
		if err != nil {
			return out, err
		}
		out.schema = s
	}
	if o.lastMessage != "" {
		path := o.lastMessage
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		// Said now, not after the model's work is done and paid for.
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
			return out, fmt.Errorf("-o/--output-last-message %s: the folder %s does not exist", o.lastMessage, filepath.Dir(path))
		}
		out.lastMessage = path
	}
	return out, nil
}
