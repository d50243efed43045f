package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/subagent"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/tools/bash"
)

// buildTools assembles the registry: the tool belt, then the tools that
// belong to the session (task list, memory, skills, the person, subagents),
// those plugins add, and those tool manifests describe. Which are offered each step is the session's
// filter's business.
func (a *App) buildTools(opts Options) error {
	a.background = bash.NewBackground(opts.Paths.Backgrounds(), a.Env, bash.Hooks{
		Output: func(id, chunk string) { a.publish(protocol.ToolOutputEvent{ID: id, Chunk: chunk}) },
		Change: func(j bash.Job, running int) { a.publish(jobEvent(j, running)) },
	})
	search := a.Loaded.Settings.WebSearch
	list := tools.Builtin(tools.Deps{Env: a.Env, Jobs: a.background, CommitModel: commitModel{a: a},
		WebSearchURL: search.URL, WebSearchLocal: search.Local != nil && *search.Local, Ruled: a.ruled})
	// The write tools' results carry the errors their edits introduced,
	// and the language-server tools join when a server is there.
	list = append(a.LSP.WithDiagnostics(list), a.LSP.Tools()...)
	list = append(list, a.Notebook.Tool())
	if a.Memory != nil {
		list = append(list, a.Memory.Tools()...)
	}
	if !opts.NoSkills {
		// The live catalogue: a registry install takes effect at the next
		// turn boundary without rebuilding the tools.
		list = append(list, skills.Tool(func() *skills.Catalogue { return a.ext.Load().skills }))
	}
	list = append(list, a.ext.Load().plugins.Tools()...)
	list = append(list, askuser.New(), agent.PlanTool())
	if !opts.NoSubagent {
		list = append(list, a.taskTool(opts))
	}
	// Manifest tools come last: one may not take a name already taken.
	list = append(list, a.manifestTools(list)...)
	// Rarely used tools wait behind tool_search, whose definition never
	// changes in a session: the first request stays small, and a tool
	// loaded later is appended to the list (tool.Registry.Active).
	list = tools.OnDemand(list)
	a.demand = tool.NewDemand()
	all := tool.Filter{Sets: opts.Sets, NoDelegation: opts.NoSubagent}
	var loadable []tool.Tool
	for _, t := range list {
		if info := t.Info(); info.OnDemand && all.Offers(info) {
			loadable = append(loadable, t)
		}
	}
	slices.SortFunc(loadable, func(x, y tool.Tool) int { return strings.Compare(x.Info().Name, y.Info().Name) })
	list = append(list, tools.ToolSearch(a.demand, loadable))
	reg, err := tool.NewRegistry(list...)
	if err != nil {
		return fmt.Errorf("assembling tools: %w", err)
	}
	a.Tools = reg
	return nil
}

// ruled reports whether a permission rule someone wrote (yours or the
// project's) decides the tool called name.
func (a *App) ruled(name string) bool {
	if a.Loaded.Policy == nil {
		return false
	}
	res := a.Loaded.Policy.Check(permission.Query{Tool: name, Subjects: []string{"a subject"}, Default: permission.Ask})
	return res.Source == permission.SourceConfig
}

// publish sends an event into the session once it exists; what happens
// before (nothing should) is dropped.
func (a *App) publish(e protocol.Event) {
	if s := a.owner; s != nil {
		s.Publish(e)
	}
}

// notice publishes text as a notice.
func (a *App) notice(text string) { a.publish(protocol.NoticeEvent{Text: text}) }

func jobEvent(j bash.Job, running int) protocol.BackgroundEvent {
	return protocol.BackgroundEvent{ID: j.ID(), Command: j.Command, State: j.State(), ExitCode: j.ExitCode, Running: running}
}

// taskTool builds the task tool. Explore subagents run on subagentModel
// when it is set. A worker needs a person to answer its approvals, so it
// is offered only in an attended session. The workspace overview in
// subagent prompts is walked once, when the first subagent starts, so a
// session that never delegates never pays for it. Agents defined in files
// (the user's, then the project's) are kinds beside the built-in ones; a
// file that fails to load is a startup problem naming it and its field.
// A project's agent shapes only a subagent's prompt, tools and model: its
// calls meet the parent's gate like any other.
func (a *App) taskTool(opts Options) tool.Tool {
	env := a.Env
	overview := sync.OnceValue(func() string {
		return prompt.Overview(context.Background(), env, prompt.DefaultOverviewBytes)
	})
	state := ""
	if opts.Paths.Home != "" {
		state = opts.Paths.State()
	}
	agents, problems := subagent.LoadAgents(subagent.AgentDirs(opts.Paths.Home, state, env.Root))
	a.startup = append(a.startup, problems...)
	var aliases map[string]string
	if opts.Settings.Preset.Protocol == llm.ProtocolAnthropic {
		aliases = subagent.ClaudeAliases()
	}
	for _, d := range agents {
		if aliases == nil && subagent.IsAlias(d.Model) {
			a.startup = append(a.startup, Problem{Kind: "agent", Where: d.Path, Err: fmt.Sprintf(
				"model: %q names a Claude model, which provider %s does not serve by that name; the agent runs on the session's model (give a model id to choose one)",
				d.Model, opts.Settings.Preset.ID)})
		}
	}
	return subagent.New(subagent.Config{
		Agents:          agents,
		Aliases:         aliases,
		ExploreModel:    opts.Settings.SubagentModel,
		ApprovalChannel: opts.Attended,
		Overview:        overview,
		Platform:        platform(),
		ProviderFor:     a.agentProvider,
	})
}

// agentProvider resolves an agent file's model that names a provider,
// "openai:gpt-5-mini", to that provider, built from its key in the
// environment (and its address from OPENAI_BASE_URL and the like, the
// variables the providers' own SDKs read), and the model's own id. A
// model that names no provider, Ollama's "llama3:8b" among them, or the
// session's own provider, runs on the session's provider.
func (a *App) agentProvider(model string) (llm.Provider, string, error) {
	id, bare, ok := strings.Cut(model, ":")
	preset, err := llm.PresetByID(id)
	if !ok || err != nil || preset.Protocol == llm.ProtocolReplay {
		return nil, model, nil
	}
	if preset.ID == a.settings().Preset.ID {
		return nil, bare, nil
	}
	getenv := a.Loaded.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	base := preset.BaseURL
	if preset.EnvKey != "" {
		if u := getenv(strings.TrimSuffix(preset.EnvKey, "_API_KEY") + "_BASE_URL"); u != "" {
			base = strings.TrimRight(u, "/")
		}
	}
	if base == "" {
		return nil, "", fmt.Errorf("model %q: provider %s has no address of its own, so an agent cannot name it; name a preset such as openai or groq", model, preset.ID)
	}
	s := setup{a}.settingsFor(commands.Draft{Preset: preset, BaseURL: base, KeyVar: preset.EnvKey}, bare)
	if s.NeedsKey() {
		return nil, "", fmt.Errorf("model %q names provider %s, whose key is not set: export %s", model, preset.ID, preset.EnvKey)
	}
	p, err := BuildProvider(s, nil)
	if err != nil {
		return nil, "", fmt.Errorf("model %q: %w", model, err)
	}
	return p, bare, nil
}

// reapBackground stops background commands an earlier shiro left running.
func (a *App) reapBackground() {
	rep, err := bash.Reap(a.opts.Paths.Backgrounds())
	switch {
	case err != nil:
		a.startup = append(a.startup, Problem{Kind: "background", Where: a.opts.Paths.Backgrounds(), Err: err.Error()})
	case len(rep.Killed) > 0:
		a.startup = append(a.startup, Problem{Kind: "background", Err: fmt.Sprintf("stopped %d command(s) left running by an earlier shiro", len(rep.Killed))})
	}
}

// replayDemand loads the on-demand tools a resumed conversation had
// loaded (its tool_search calls, and the calls it made by name), so that
// the resumed session offers what its history calls.
func (a *App) replayDemand(history []llm.Message) {
	var loadable []tool.Tool
	for _, m := range history {
		for _, c := range m.ToolCalls() {
			if c.Name != tools.ToolSearchName {
				if t, ok := a.Tools.Get(c.Name); ok && t.Info().OnDemand {
					a.demand.Load(c.Name)
				}
				continue
			}
			var in struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(c.Input, &in) != nil {
				continue // a call that failed to decode loaded nothing either
			}
			if loadable == nil {
				loadable = a.Tools.OnDemand(tool.Filter{Sets: a.opts.Sets, NoDelegation: a.opts.NoSubagent})
			}
			tools.LoadQuery(a.demand, loadable, in.Query)
		}
	}
}
