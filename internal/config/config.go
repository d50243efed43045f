// Package config reads shiro's settings: the user's config file, the
// project's restricted config, environment variables and flags, with flags
// overriding the environment and the environment overriding files.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// File is the shape of config.json. Pointers distinguish "absent" from a
// zero value where the default is not zero.
type File struct {
	Provider          string           `json:"provider,omitempty"`
	Model             string           `json:"model,omitempty"`
	BaseURL           string           `json:"baseURL,omitempty"`
	APIKey            string           `json:"apiKey,omitempty"`
	MaxRetries        *int             `json:"maxRetries,omitempty"`
	SubagentModel     string           `json:"subagentModel,omitempty"`
	Agent             string           `json:"agent,omitempty"`
	Thinking          string           `json:"thinking,omitempty"`
	Plugins           *[]string        `json:"plugins,omitempty"`
	ToolSets          *[]string        `json:"toolSets,omitempty"`
	Permission        json.RawMessage  `json:"permission,omitempty"`
	CacheSystemPrefix *bool            `json:"cacheSystemPrefix,omitempty"`
	AnthropicVersion  string           `json:"anthropicVersion,omitempty"`
	HookTimeoutMs     *int             `json:"hookTimeoutMs,omitempty"`
	Hooks             *HooksConfig     `json:"hooks,omitempty"`
	Registry          *RegistryConfig  `json:"registry,omitempty"`
	Workflow          *WorkflowConfig  `json:"workflow,omitempty"`
	MCPServers        json.RawMessage  `json:"mcpServers,omitempty"`
	Sandbox           *SandboxConfig   `json:"sandbox,omitempty"`
	MCP               *MCPConfig       `json:"mcp,omitempty"`
	Env               *EnvConfig       `json:"env,omitempty"`
	WebSearch         *WebSearchConfig `json:"webSearch,omitempty"`
	// Approval is when commands ask: untrusted, on-request (the default)
	// or never (permission.ParseApproval). A project may only choose
	// untrusted.
	Approval string `json:"approval,omitempty"`
	// LSP adds or overrides language servers (lsp.go).
	LSP map[string]LSPServer `json:"lsp,omitempty"`
	// MaxSpendUSD and MaxSpendPerTurn are the spend ceilings, MaxSteps the
	// step cap of a turn, Models the model catalogue's additions
	// (cost.go).
	MaxSpendUSD     *float64              `json:"maxSpendUsd,omitempty"`
	MaxSpendPerTurn *float64              `json:"maxSpendPerTurn,omitempty"`
	MaxSteps        *int                  `json:"maxSteps,omitempty"`
	Models          map[string]ModelEntry `json:"models,omitempty"`
	// CompactAt is the share of the context window that triggers
	// automatic compaction (compact.go).
	CompactAt *float64 `json:"compactAt,omitempty"`
	// AutoLearn turns the background learner on or off (default on); a
	// project may only turn it off.
	AutoLearn *bool `json:"autoLearn,omitempty"`
	// StatusLine is a command whose output replaces the status line, and
	// Notifications how the desktop is told that shiro waits
	// (statusline.go).
	StatusLine    json.RawMessage `json:"statusLine,omitempty"`
	Notifications string          `json:"notifications,omitempty"`
	// ProviderOptions holds the object form of "provider" (see
	// ProviderOptions); Provider then holds its id.
	ProviderOptions ProviderOptions `json:"-"`
	// OriginalKeys are the keys in the TypeScript original's spelling
	// (original.go).
	OriginalKeys
}

// HooksConfig is the `hooks` object.
type HooksConfig struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// RegistryConfig is the `registry` object. Publishers and AllowUnsigned are
// honoured only from the user's own config: a project cannot add trust.
type RegistryConfig struct {
	URL           string            `json:"url,omitempty"`
	Publishers    map[string]string `json:"publishers,omitempty"`
	AllowUnsigned *bool             `json:"allowUnsigned,omitempty"`
}

// WorkflowConfig is the `workflow` object.
type WorkflowConfig struct {
	Enabled *bool  `json:"enabled,omitempty"`
	DocsDir string `json:"docsDir,omitempty"`
}

// knownKeys are the top-level keys of config.json; others are reported.
func knownKeys() []string {
	return []string{"provider", "model", "baseURL", "apiKey", "maxRetries", "subagentModel", "agent", "thinking",
		"plugins", "toolSets", "permission", "cacheSystemPrefix", "anthropicVersion", "hookTimeoutMs", "hooks",
		"registry", "workflow", "mcpServers", "mcp", "presetId", "sandbox",
		"maxSpendUsd", "maxSpendPerTurn", "maxSteps", "models", "compactAt", "env", "approval", "lsp",
		"registryUrl", "registryPublishers", "registryAllowUnsigned", "diagnostics", "continueWhileTodos", "autoLearn", "webSearch",
		"statusLine", "notifications"}
}

// ReadFile parses a config file. A missing file is an empty config. Unknown
// keys come back as warnings; malformed JSON or a field of the wrong type is
// an error naming the file and the field.
func ReadFile(path string) (File, []string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, nil, nil
	}
	if err != nil {
		return File{}, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse decodes config bytes; name is the file name for messages.
func Parse(name string, data []byte) (File, []string, error) {
	var f File
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return f, nil, fmt.Errorf("%s is not valid JSON (%s). Fix the file or move it aside", name, describeJSONError(data, err))
	}
	var warnings []string
	for k := range raw {
		if !slices.Contains(knownKeys(), k) {
			warnings = append(warnings, fmt.Sprintf("%s: unknown key %q ignored", name, k))
		}
	}
	slices.Sort(warnings)
	data, providerOptions, err := splitProvider(name, data, raw)
	if err != nil {
		return f, warnings, err
	}
	f.ProviderOptions = providerOptions
	if err := checkModels(name, raw["models"]); err != nil {
		return f, warnings, err
	}
	if err := checkLSPEntries(name, raw["lsp"]); err != nil {
		return f, warnings, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return f, warnings, fmt.Errorf("%s: field %q should be %s, not a JSON %s", name, te.Field, typeName(te.Type.String()), te.Value)
		}
		return f, warnings, fmt.Errorf("%s: %w", name, err)
	}
	if f.MaxRetries != nil && (*f.MaxRetries < 0 || *f.MaxRetries > 10) {
		return f, warnings, fmt.Errorf("%s: field \"maxRetries\" must be between 0 and 10", name)
	}
	if f.HookTimeoutMs != nil && (*f.HookTimeoutMs < 100 || *f.HookTimeoutMs > 60000) {
		return f, warnings, fmt.Errorf("%s: field \"hookTimeoutMs\" must be between 100 and 60000", name)
	}
	if f.MCP != nil {
		if err := f.MCP.check(name); err != nil {
			return f, warnings, err
		}
	}
	if f.Env != nil {
		if err := f.Env.check(name); err != nil {
			return f, warnings, err
		}
	}
	if f.WebSearch != nil {
		if err := f.WebSearch.check(name); err != nil {
			return f, warnings, err
		}
	}
	if err := checkLSP(name, f.LSP); err != nil {
		return f, warnings, err
	}
	if _, err := ParseStatusLine(f.StatusLine); err != nil {
		return f, warnings, fmt.Errorf("%s: field \"statusLine\": %w", name, err)
	}
	if err := checkNotifications(name, f.Notifications); err != nil {
		return f, warnings, err
	}
	if err := f.checkCost(name); err != nil {
		return f, warnings, err
	}
	if err := f.checkCompact(name); err != nil {
		return f, warnings, err
	}
	return f, warnings, nil
}

func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "*[]"), strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.Contains(goType, "map["), strings.Contains(goType, "Config"):
		return "an object"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "bool"):
		return "true or false"
	}
	return "a string"
}

// describeJSONError names the line and column of a syntax error.
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	line, col := 1, 1
	for _, b := range data[:min(int(se.Offset), len(data))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, se)
}
