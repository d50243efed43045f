package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/diagnostics"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/mention"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// uxParts are what the everyday-use features keep for a session: the @
// picker's index, the person's background check, the slash commands (for
// their custom commands), and the provider settings as /provider last
// changed them.
type uxParts struct {
	index *mention.Index
	diag  *diagnostics.Runner
	cmds  *commands.Set

	mu       sync.Mutex
	settings config.Settings
	// swap is a provider /provider saved, handed to the next turn.
	swap *agent.TurnSetup
}

// openUX builds the parts; the commands come with the session.
func (a *App) openUX() {
	a.ux = &uxParts{index: mention.NewIndex(a.Env), settings: a.Loaded.Settings}
	a.ux.diag = diagnostics.New(a.Env, func(r diagnostics.Report) {
		a.publish(protocol.CommandResultEvent{Command: "diagnostics", Output: commands.DiagnosticsReport(r)})
	})
}

// startConfiguredCheck starts the check config names, as /diagnostics run
// would, once the session that shows its report exists; a failure to
// start is a notice, not a reason to refuse the session.
func (a *App) startConfiguredCheck() {
	d := a.Loaded.Settings.Diagnostics
	if d == nil || strings.TrimSpace(d.Command) == "" {
		return
	}
	a.ux.diag.SetAuto(d.Auto)
	if err := a.ux.diag.Run(d.Command); err != nil {
		a.notice("diagnostics: " + err.Error())
	}
}

// settings are the provider settings in use: those loaded at start, or
// those /provider saved since.
func (a *App) settings() config.Settings {
	a.ux.mu.Lock()
	defer a.ux.mu.Unlock()
	return a.ux.settings
}

// turnStart is how a turn starts, for the app: Setup and Expand.
type turnStart struct {
	agent.NoHooks
	a *App
}

// Setup is the session's turn boundary: reloaded extensions, a provider
// /provider saved, custom command files added or changed since the last
// turn; the language servers forget the last turn's files.
func (t turnStart) Setup(ctx context.Context) agent.TurnSetup {
	a := t.a
	setup := a.beforeTurn(ctx)
	a.LSP.BeginTurn()
	a.ux.mu.Lock()
	if swap := a.ux.swap; swap != nil {
		setup.Provider, setup.ProviderName, setup.Model = swap.Provider, swap.ProviderName, swap.Model
		a.ux.swap = nil
	}
	a.ux.mu.Unlock()
	if a.ux.cmds.Refresh() {
		setup.Commands = true
		for _, p := range a.ux.cmds.CustomProblems() {
			setup.Notices = append(setup.Notices, "command "+p)
		}
	}
	return setup
}

// commandProblems are the custom command files that did not load.
func (a *App) commandProblems() []Problem {
	if a.ux == nil || a.ux.cmds == nil {
		return nil
	}
	var out []Problem
	for _, p := range a.ux.cmds.CustomProblems() {
		where, err, _ := strings.Cut(p, ": ")
		out = append(out, Problem{Kind: "command", Where: where, Err: err})
	}
	return out
}

// expandTurn attaches the files a message names with @path, pictures as
// images.
func (a *App) expandTurn(_ context.Context, text string) (string, []llm.Image, []string) {
	expanded, images, added := mention.Attach(a.Env, text)
	if len(added) == 0 {
		return text, nil, nil
	}
	return expanded, images, []string{"attached " + strings.Join(added, ", ")}
}

// uxObserver keeps the picker's index and the background check in step
// with what a turn changed.
type uxObserver struct {
	agent.NoHooks
	a *App
}

func (o uxObserver) Ended(_ context.Context, t agent.TurnEnd) agent.Ending {
	if len(t.FilesWritten) > 0 || t.RanCommands {
		o.a.ux.index.Invalidate()
		o.a.ux.diag.AfterChange()
	}
	return agent.Ending{}
}

// announceSetup opens /provider for a person who has no key yet.
func (a *App) announceSetup() {
	out, err := a.ux.cmds.Run(context.Background(), "/provider")
	if err != nil {
		return
	}
	a.publish(protocol.CommandResultEvent{Command: "provider", Line: "/provider",
		Output: "No API key is set up yet. " + out.Output, Choices: out.Choices})
}

// The rest of this file is commands.UXHost.

func (h host) Files(ctx context.Context, query string, limit int) ([]string, error) {
	return h.a.ux.index.Match(ctx, query, limit)
}

func (h host) Setup() commands.Setup { return setup(h) }

func (h host) Diagnostics() *diagnostics.Runner { return h.a.ux.diag }

func (h host) CommandSources() []commands.CommandSource {
	p := h.a.Loaded.Paths
	return []commands.CommandSource{
		{Dir: filepath.Join(p.ClaudeDir(), "commands"), Origin: "claude-user"},
		{Dir: p.Commands(), Origin: "user"},
		{Dir: filepath.Join(h.a.Env.Root, ".claude", "commands"), Origin: "claude-project"},
		{Dir: filepath.Join(config.ProjectDir(h.a.Env.Root), "commands"), Origin: "project"},
	}
}

// ShellTool finds the tool that runs one shell command line by what it
// says of itself: it runs programs, its subjects are command lines, and
// its input needs exactly a "command".
func (h host) ShellTool() string {
	reg := h.a.owner.Tools()
	for _, name := range reg.Names() {
		t, _ := reg.Get(name)
		info := t.Info()
		if info.Effect != tool.Runs || info.Subject != tool.CommandSubject {
			continue
		}
		var schema struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(info.Schema, &schema) == nil && slices.Equal(schema.Required, []string{"command"}) {
			return info.Name
		}
	}
	return ""
}

func (h host) Complete(ctx context.Context, system, text string) (string, error) {
	return h.a.owner.CompleteOn(ctx, "", system, text)
}

func (h host) Notes() commands.Notes {
	if h.a.Memory == nil {
		return nil
	}
	return notes{h.a.Memory}
}

func (h host) Context() commands.ContextReport {
	a := h.a
	var r commands.ContextReport
	if !a.opts.NoInstructions {
		_, files := prompt.ReadInstructions(a.Env.Root, a.instructionOptions())
		for _, f := range files {
			r.Files = append(r.Files, commands.ContextFile{Label: f.Label, Bytes: f.Bytes, Tracker: f.Tracker, Cut: f.Cut,
				ImportedBy: f.ImportedBy, Skipped: f.Skipped})
		}
	}
	r.ReadOnly = a.Env.ReadOnlyRoots()
	variant := a.owner.Variant()
	stable, volatile := a.Prompt.Prompt(a.owner.ActiveTools(), variant.Appendix)
	r.StableBytes, r.VolatileBytes = len(stable), len(volatile)
	ext := a.ext.Load()
	named := []commands.PromptPart{
		{Name: "workspace overview", Bytes: len(a.Workspace.Overview())},
		{Name: "instruction and tracker files", Bytes: len(a.Workspace.Instructions())},
		{Name: "workflow policy", Bytes: len(a.Workspace.Policy())},
		{Name: "skills catalogue", Bytes: len(ext.skills.PromptSection())},
		{Name: "agent " + variant.Name, Bytes: len(variant.Appendix)},
	}
	plugins := 0
	for _, p := range ext.plugins.Appendices() {
		plugins += len(p)
	}
	named = append(named, commands.PromptPart{Name: "plugin appendices", Bytes: plugins})
	rest := len(stable)
	for _, p := range named {
		rest -= p.Bytes
	}
	r.Stable = append([]commands.PromptPart{{Name: "identity, tools and rules", Bytes: max(rest, 0)}}, named...)
	if a.Memory != nil {
		r.Volatile = append(r.Volatile, commands.PromptPart{Name: "project memory", Bytes: len(a.Memory.BootBlock())})
	}
	r.Volatile = append(r.Volatile, commands.PromptPart{Name: "task list", Bytes: len(a.Notebook.Render())})
	return r
}

// notes adapts the memory store to the commands.
type notes struct{ m *memory.Store }

func (n notes) List() []commands.Note {
	var out []commands.Note
	for _, e := range n.m.Entries() {
		out = append(out, commands.Note{ID: e.ID, Kind: string(e.Kind), Text: e.Text, Hits: e.Hits, Created: e.CreatedAt})
	}
	return out
}

func (n notes) Compact(ids []string, merged []commands.Note) (int, int, error) {
	m := make([]memory.Merged, len(merged))
	for i, x := range merged {
		m[i] = memory.Merged{Kind: memory.Kind(x.Kind), Text: x.Text}
	}
	res, err := n.m.Compact(ids, m)
	return res.Removed, res.Added, err
}

func (n notes) Forget(text string) ([]commands.Note, error) {
	gone, err := n.m.Forget(text)
	out := make([]commands.Note, len(gone))
	for i, e := range gone {
		out[i] = commands.Note{ID: e.ID, Kind: string(e.Kind), Text: e.Text, Hits: e.Hits, Created: e.CreatedAt}
	}
	return out, err
}

// setup is /provider's side.
type setup struct{ a *App }

func (s setup) Presets() []llm.Preset { return llm.Presets() }

// EnvKey names the variable a key for p would be read from at start: the
// preset's own, or SHIRO_API_KEY.
func (s setup) EnvKey(p llm.Preset) string {
	getenv := s.a.Loaded.getenv
	if getenv == nil {
		return ""
	}
	for _, v := range []string{p.EnvKey, "SHIRO_API_KEY"} {
		if v != "" && getenv(v) != "" {
			return v
		}
	}
	return ""
}

func (s setup) Models(ctx context.Context, d commands.Draft) ([]string, string, error) {
	return ListModels(ctx, s.settingsFor(d, ""))
}

// Save writes the choice into the user config (merged, 0600) and hands
// the provider to the next turn.
func (s setup) Save(d commands.Draft, model string) (string, error) {
	a := s.a
	next := s.settingsFor(d, model)
	p, err := BuildProvider(next, a.opts.Record)
	if err != nil {
		return "", err
	}
	patch := map[string]string{"provider": d.Preset.ID, "model": model, "baseURL": "", "apiKey": d.APIKey}
	if d.BaseURL != d.Preset.BaseURL {
		patch["baseURL"] = d.BaseURL
	}
	file := a.Loaded.Paths.ConfigFile()
	if err := config.Update(file, patch); err != nil {
		return "", err
	}
	a.ux.mu.Lock()
	a.ux.settings = next
	a.ux.swap = &agent.TurnSetup{Provider: p, ProviderName: d.Preset.ID, Model: model}
	a.ux.mu.Unlock()
	return file, nil
}

// settingsFor is the settings in use with the draft's provider in place.
func (s setup) settingsFor(d commands.Draft, model string) config.Settings {
	next := s.a.settings()
	next.Preset, next.BaseURL, next.Model = d.Preset, d.BaseURL, model
	next.APIKey, next.KeyVar = d.APIKey, "apiKey in config.json"
	if d.APIKey == "" && d.KeyVar != "" && s.a.Loaded.getenv != nil {
		next.APIKey, next.KeyVar = s.a.Loaded.getenv(d.KeyVar), d.KeyVar
	}
	next.CacheSystemPrefix = d.Preset.Protocol == llm.ProtocolAnthropic
	return next
}
