package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Flags are the command-line settings that override config and env.
type Flags struct {
	Provider, Model, BaseURL string
	Agent, Think             string
	Cassette                 string
	// Sandbox is --sandbox: read-only, workspace-write or off.
	Sandbox string
	// MaxSteps is --max-steps: the step cap of a turn; zero keeps config's.
	MaxSteps int
	// Approval is --approval: untrusted, on-request or never.
	Approval string
	// Mode is --permission-mode: the permission mode the session starts
	// in (permission.ParseMode); empty leaves it to Claude Code's
	// defaultMode, else default.
	Mode string
}

// DefaultPlugins are the builtin plugins enabled when config names none.
func DefaultPlugins() []string {
	return []string{"guard", "secrets", "protect", "time", "no-force-push", "no-net-pipe", "no-root", "no-env-write"}
}

// DefaultRegistryURL is the registry index used when config names none.
const DefaultRegistryURL = "https://raw.githubusercontent.com/shiro-neko/registry/main/index.json"

// Settings is the resolved configuration of a run.
type Settings struct {
	Preset  llm.Preset
	Model   string
	BaseURL string
	APIKey  string
	// KeyVar names where the key came from (for messages), or the variable
	// to set when there is none.
	KeyVar        string
	MaxRetries    int
	SubagentModel string
	Agent         string
	Thinking      string
	Cassette      string

	Plugins  []string
	ToolSets []string // nil: the default sets
	// Permission is the user's rule table; ProjectPermission the project's,
	// which can only make decisions stricter.
	Permission        json.RawMessage
	ProjectPermission json.RawMessage

	CacheSystemPrefix bool
	AnthropicVersion  string
	// ProviderAPI is the OpenAI wire named by provider.api ("chat",
	// "responses"), empty to choose per model.
	ProviderAPI string
	// IdleTimeout is provider.idleTimeoutSeconds.
	IdleTimeout  time.Duration
	HookTimeout  time.Duration
	HooksEnabled bool

	RegistryURL           string
	RegistryPublishers    map[string]string
	RegistryAllowUnsigned bool

	WorkflowEnabled bool
	DocsDir         string

	// Diagnostics is the background check started with the session; nil
	// when config names none.
	Diagnostics *DiagnosticsConfig
	// ContinueWhileTasks is how many times one message's turn is sent
	// back to work while the task list has unfinished tasks (zero: off).
	ContinueWhileTasks int

	MCPServers json.RawMessage

	MCP MCPConfig
	// LSP is the user's `lsp` object: language servers added or changed.
	LSP      map[string]LSPServer
	Warnings []string

	// Sandbox is the user's sandbox table, ProjectSandbox what the
	// project's may add (a mode, which counts only if it is stricter, and
	// network: false), SandboxFlag the --sandbox flag, which wins.
	Sandbox        SandboxConfig
	ProjectSandbox SandboxConfig
	SandboxFlag    string

	// Approval is the approval policy as written: --approval, else the
	// user's, or the project's untrusted (a project may only ask more).
	// app parses it (permission.ParseApproval).
	Approval string

	// EnvPassthrough is the user's env.passthrough: variables handed on to
	// commands, hooks and MCP servers although they look secret.
	EnvPassthrough []string

	// MaxSpendUSD and MaxSpendPerTurn are the spend ceilings in US dollars
	// (zero: none); MaxSteps the step cap of a turn (zero: the agent's);
	// Models the user's model catalogue entries by id.
	MaxSpendUSD     float64
	MaxSpendPerTurn float64
	MaxSteps        int
	Models          map[string]ModelEntry
	// CompactAt is the share of the context window that triggers
	// automatic compaction (zero: the agent's default).
	CompactAt float64
	// AutoLearn runs the background learner after turns (internal/learn).
	AutoLearn bool
	// WebSearch is the user's webSearch object (a project's is ignored:
	// it would choose where the person's queries go).
	WebSearch WebSearchConfig
	// StatusLine is the user's status line command, ProjectStatusLine the
	// project's (run only once approved); nil when none. Notifications
	// is one of NotificationModes.
	StatusLine        *StatusLine
	ProjectStatusLine *StatusLine
	Notifications     string
}

// Resolve merges the user's config file, the project's config file, the
// environment and flags. The project file may only tighten things: it can
// add deny/ask rules, enable more plugins and choose tool sets and workflow
// settings; it cannot choose the provider, endpoint, key or registry trust,
// since a cloned repository must not be able to send your key elsewhere or
// switch your guards off.
func Resolve(user, project File, getenv func(string) string, flags Flags) (Settings, error) {
	s := Settings{
		MaxRetries:      3,
		Plugins:         DefaultPlugins(),
		HookTimeout:     5 * time.Second,
		HooksEnabled:    true,
		RegistryURL:     DefaultRegistryURL,
		WorkflowEnabled: true,
		DocsDir:         "docs",
		AutoLearn:       true,
	}
	if err := s.resolveProvider(user, getenv, flags); err != nil {
		return s, err
	}
	s.applyUser(user)
	s.applyProject(project)
	s.applySandbox(user, project)
	s.applyEnv(user, project)
	s.SandboxFlag = flags.Sandbox
	s.applyApproval(user, project, flags)
	s.applyCost(user, project)
	s.applyCompact(user, project)
	s.applyStatusLine(user, project)
	if flags.MaxSteps < 0 || flags.MaxSteps > 1000 {
		return s, fmt.Errorf("--max-steps must be between 1 and 1000, not %d", flags.MaxSteps)
	}
	if flags.MaxSteps > 0 {
		s.MaxSteps = flags.MaxSteps
	}
	if flags.Agent != "" {
		s.Agent = flags.Agent
	}
	if flags.Think != "" {
		s.Thinking = flags.Think
	}
	if s.Thinking != "" {
		if _, err := llm.ParseThinking(s.Thinking); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (s *Settings) resolveProvider(f File, getenv func(string) string, flags Flags) error {
	id := "anthropic"
	switch {
	case flags.Provider != "":
		id = flags.Provider
	case getenv("SHIRO_PROVIDER") != "":
		id = getenv("SHIRO_PROVIDER")
	case f.presetID() != "":
		id = f.presetID()
	}
	preset, err := llm.PresetByID(id)
	if err != nil {
		return err
	}
	s.Preset = preset
	s.Model = firstNonEmpty(flags.Model, getenv("SHIRO_MODEL"), f.Model, preset.DefaultModel)
	s.BaseURL = strings.TrimRight(firstNonEmpty(flags.BaseURL, getenv("SHIRO_BASE_URL"), f.BaseURL, preset.BaseURL), "/")
	s.Cassette = flags.Cassette
	switch {
	case getenv("SHIRO_API_KEY") != "":
		s.APIKey, s.KeyVar = getenv("SHIRO_API_KEY"), "SHIRO_API_KEY"
	case f.APIKey != "":
		s.APIKey, s.KeyVar = f.APIKey, "apiKey in config.json"
	case preset.EnvKey != "" && getenv(preset.EnvKey) != "":
		// Only the preset's own variable: sending OPENAI_API_KEY to a
		// third-party endpoint would hand your key to someone else.
		s.APIKey, s.KeyVar = getenv(preset.EnvKey), preset.EnvKey
	default:
		s.KeyVar = preset.EnvKey
		if s.KeyVar == "" {
			s.KeyVar = "SHIRO_API_KEY"
		}
	}
	if preset.ID == ClaudeCodePreset {
		explicitURL := flags.BaseURL != "" || getenv("SHIRO_BASE_URL") != "" || f.BaseURL != ""
		if err := s.applyClaudeCode(getenv, explicitURL); err != nil {
			return err
		}
	}
	if s.Model == "" {
		return fmt.Errorf("no model configured for provider %s: pass --model or set SHIRO_MODEL", preset.ID)
	}
	if s.BaseURL == "" && preset.Protocol != llm.ProtocolReplay {
		return fmt.Errorf("provider %s needs a base URL: pass --base-url or set SHIRO_BASE_URL (the API root including /v1)", preset.ID)
	}
	return nil
}

// NeedsKey reports whether the run cannot start without an API key.
func (s Settings) NeedsKey() bool { return s.APIKey == "" && !s.Preset.Keyless }

func (s *Settings) applyUser(f File) {
	if f.MaxRetries != nil {
		s.MaxRetries = *f.MaxRetries
	}
	s.SubagentModel = f.SubagentModel
	s.Agent = f.Agent
	s.Thinking = f.Thinking
	if f.Plugins != nil {
		s.Plugins = slices.Clone(*f.Plugins)
	}
	if f.ToolSets != nil {
		s.ToolSets = slices.Clone(*f.ToolSets)
	}
	s.Permission = f.Permission
	s.CacheSystemPrefix = s.Preset.Protocol == llm.ProtocolAnthropic
	if f.CacheSystemPrefix != nil {
		s.CacheSystemPrefix = *f.CacheSystemPrefix
	}
	s.AnthropicVersion = f.AnthropicVersion
	s.applyProviderOptions(f.ProviderOptions)
	if f.WebSearch != nil {
		s.WebSearch = *f.WebSearch
	}
	if f.HookTimeoutMs != nil {
		s.HookTimeout = time.Duration(*f.HookTimeoutMs) * time.Millisecond
	}
	if f.Hooks != nil && f.Hooks.Enabled != nil {
		s.HooksEnabled = *f.Hooks.Enabled
	}
	if r := f.Registry; r != nil {
		if r.URL != "" {
			s.RegistryURL = r.URL
		}
		s.RegistryPublishers = r.Publishers
		if r.AllowUnsigned != nil {
			s.RegistryAllowUnsigned = *r.AllowUnsigned
		}
	}
	s.applyOriginalRegistry(f)
	s.Diagnostics = f.Diagnostics
	if f.ContinueWhileTodos != nil {
		s.ContinueWhileTasks = f.ContinueWhileTodos.MaxTurns
	}
	s.applyWorkflow(f.Workflow)
	if f.AutoLearn != nil {
		s.AutoLearn = *f.AutoLearn
	}
	s.MCPServers = f.MCPServers
	if f.MCP != nil {
		s.MCP = *f.MCP
	}
	if f.LSP != nil {
		s.LSP = f.LSP
	}
}

func (s *Settings) applyWorkflow(w *WorkflowConfig) {
	if w == nil {
		return
	}
	if w.Enabled != nil {
		s.WorkflowEnabled = *w.Enabled
	}
	if w.DocsDir != "" {
		s.DocsDir = w.DocsDir
	}
}

// applyProject takes the keys a project may set and warns about the rest.
func (s *Settings) applyProject(f File) {
	if f.Plugins != nil {
		for _, p := range *f.Plugins {
			if !slices.Contains(s.Plugins, p) {
				s.Plugins = append(s.Plugins, p)
			}
		}
	}
	if f.ToolSets != nil {
		s.ToolSets = slices.Clone(*f.ToolSets)
	}
	s.ProjectPermission = f.Permission
	s.applyWorkflow(f.Workflow)
	// Learning writes to the person's own skill folder and spends their
	// money: a project may turn it off, never on.
	if f.AutoLearn != nil && !*f.AutoLearn {
		s.AutoLearn = false
	}
	ignored := []string{}
	if f.Provider != "" || f.BaseURL != "" || f.APIKey != "" || f.Model != "" || f.ProviderOptions != (ProviderOptions{}) {
		ignored = append(ignored, "provider/baseURL/apiKey/model")
	}
	if f.Registry != nil || f.RegistryURL != "" || f.OriginalKeys.RegistryPublishers != nil || f.OriginalKeys.RegistryAllowUnsigned != nil {
		ignored = append(ignored, "registry")
	}
	if f.Diagnostics != nil {
		ignored = append(ignored, "diagnostics (it runs a program)")
	}
	if f.Hooks != nil || f.HookTimeoutMs != nil {
		ignored = append(ignored, "hooks")
	}
	if f.MCPServers != nil || f.MCP != nil {
		ignored = append(ignored, "mcpServers/mcp (a project's MCP servers go in .mcp.json)")
	}
	if f.LSP != nil {
		// A language server is a command run on every edit: a cloned
		// repository must not pick it.
		ignored = append(ignored, "lsp")
	}
	if f.AutoLearn != nil && *f.AutoLearn {
		ignored = append(ignored, "autoLearn: true (a project may only turn it off)")
	}
	if len(ignored) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("project config: %s can only be set in your own config (%s); ignored", strings.Join(ignored, ", "), "~/.shiro-neko/config.json"))
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// applyApproval picks the approval policy: --approval wins; otherwise
// the user's, unless the project asks for untrusted. A project cannot
// choose on-request or never, which would ask less than you chose.
func (s *Settings) applyApproval(user, project File, flags Flags) {
	s.Approval = user.Approval
	switch project.Approval {
	case "":
	case "untrusted":
		s.Approval = "untrusted"
	default:
		s.Warnings = append(s.Warnings, fmt.Sprintf("project config: approval %q ignored; a project may only choose \"untrusted\" (your own config sets the rest)", project.Approval))
	}
	if flags.Approval != "" {
		s.Approval = flags.Approval
	}
}
