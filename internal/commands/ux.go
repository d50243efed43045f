package commands

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/diagnostics"
	"github.com/shiro-neko/shiro/internal/llm"
)

// UXHost is what the everyday-use commands need of the host: the @
// picker's candidates, provider setup, the panels (/context, /notes,
// /memory, /diagnostics) and the folders of custom commands.
type UXHost interface {
	// Files lists the workspace paths that match query, best first, for
	// the @ picker; directories end in "/".
	Files(ctx context.Context, query string, limit int) ([]string, error)
	// Setup is /provider's side.
	Setup() Setup
	// Context says what the system prompt is made of now.
	Context() ContextReport
	// Notes is the project memory; nil when memory is off.
	Notes() Notes
	// Complete sends one prompt to the session's model, with no tools and
	// no history, and returns the answer (/memory's compaction).
	Complete(ctx context.Context, system, prompt string) (string, error)
	// Diagnostics is the person's background check; nil when unavailable.
	Diagnostics() *diagnostics.Runner
	// CommandSources are the folders of custom commands, lowest
	// precedence first.
	CommandSources() []CommandSource
	// ShellTool names the tool that runs one shell command line (what a
	// custom command's !`cmd` becomes); "" when the session has none.
	ShellTool() string
}

// Setup is /provider's side: the presets, the keys the environment holds,
// the models an endpoint lists, and saving the choice.
type Setup interface {
	// Presets are the providers to choose from, in menu order.
	Presets() []llm.Preset
	// EnvKey names the environment variable that holds a key for p, ""
	// when none does.
	EnvKey(p llm.Preset) string
	// Models lists the models of the draft's endpoint (or the preset's
	// own list, with a warning, when the endpoint does not list them).
	Models(ctx context.Context, d Draft) (models []string, warning string, err error)
	// Save writes the choice to the user config and has the session use
	// it from the next turn; it returns the config file's path.
	Save(d Draft, model string) (string, error)
}

// Draft is a provider being set up.
type Draft struct {
	Preset  llm.Preset
	BaseURL string
	// APIKey is a pasted key. KeyVar, with APIKey empty, names the
	// environment variable the key is read from; with neither, the
	// preset needs no key.
	APIKey, KeyVar string
}

// ContextReport is what /context shows: the instruction and tracker files
// in use, and how the prompt's bytes divide.
type ContextReport struct {
	Files []ContextFile
	// Stable and Volatile are the parts of the two halves of the system
	// prompt, in order, with their sizes; StableBytes and VolatileBytes
	// are the halves' whole sizes.
	Stable, Volatile           []PromptPart
	StableBytes, VolatileBytes int
	// ReadOnly are the skill folders outside the workspace that the read
	// tools may read.
	ReadOnly []string
}

// ContextFile is one instruction or tracker file.
type ContextFile struct {
	Label      string
	Bytes      int
	Tracker    bool
	Cut        bool
	ImportedBy string
	Skipped    string
}

// PromptPart is one part of the prompt and its size in bytes.
type PromptPart struct {
	Name  string
	Bytes int
}

// Notes is the project memory as /notes and /memory see it.
type Notes interface {
	// List returns the entries, newest first.
	List() []Note
	// Compact replaces the entries named by ids with merged ones.
	Compact(ids []string, merged []Note) (removed, added int, err error)
	// Forget removes the entries whose text contains text (ignoring
	// case) and returns them.
	Forget(text string) ([]Note, error)
}

// Note is one memory entry.
type Note struct {
	ID, Kind, Text string
	Hits           int
	Created        time.Time
}

// uxState is what the commands keep between calls: the custom commands
// found last, and the provider being set up.
type uxState struct {
	custom atomic.Pointer[customSet]

	mu    sync.Mutex
	draft *Draft
}

// uxCommands are the everyday-use commands, after the others in /help.
func uxCommands() []command {
	return []command{
		{name: "provider", args: "[PRESET]", summary: "set up a provider: preset, API key, model; saved to your config", aliases: []string{"login"}, immediate: true, runSet: (*Set).runProvider},
		{name: "context", summary: "the instruction and tracker files in use, and the prompt's size by part", immediate: true, run: runContext},
		{name: "notes", summary: "the project memory, newest first", immediate: true, run: runNotes},
		{name: "memory", args: "[forget TEXT]", summary: "have the model merge memory entries nobody recalled into fewer, or forget the entries holding TEXT", run: runMemory},
		{name: "diagnostics", args: "[run CMD | start | stop | on | off | status]", summary: "one background check whose output only you see", immediate: true, run: runDiagnostics},
		{name: "files", args: "[QUERY]", summary: "workspace paths matching QUERY (what the @ picker offers)", immediate: true, run: runFiles},
	}
}

// filesLimit is how many paths /files answers with.
const filesLimit = 50

func runFiles(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	paths, err := h.Files(ctx, args, filesLimit)
	if err != nil {
		return agent.CommandOutcome{}, fmt.Errorf("listing the workspace: %w", err)
	}
	return text(strings.Join(paths, "\n")), nil
}

func (s *Set) runHelp(context.Context, string) (agent.CommandOutcome, error) {
	return text(s.helpText()), nil
}

// helpText is the session's /help: every command in two columns, the
// custom commands after the built-in ones.
func (s *Set) helpText() string {
	type row struct{ label, summary string }
	var rows []row
	for _, c := range s.cmds {
		summary := c.summary
		if len(c.aliases) > 0 {
			summary += " (also /" + strings.Join(c.aliases, ", /") + ")"
		}
		rows = append(rows, row{label(c.name, c.args), summary})
	}
	custom := s.ux.custom.Load().list()
	for _, c := range custom {
		rows = append(rows, row{label(c.name, c.hint), c.summary()})
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r.label))
	}
	width = min(width, 40)
	var b strings.Builder
	b.WriteString("Commands:\n")
	for i, r := range rows {
		if i == len(s.cmds) {
			b.WriteString("Custom commands:\n")
		}
		if len(r.label) > width {
			fmt.Fprintf(&b, "  %s\n  %-*s  %s\n", r.label, width, "", r.summary)
			continue
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, r.label, r.summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// label is "/name args".
func label(name, args string) string {
	if args == "" {
		return "/" + name
	}
	return "/" + name + " " + args
}
