package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The keys that shiro-neko's TypeScript original wrote and this shiro
// reads too, so that a user who switches keeps their config.json as it
// is: the flat registry keys, presetId (with Claude Code's settings for
// the claude-code preset), and diagnostics. Where the original had a
// defect (registryAllowUnsigned read as true unless explicitly false),
// the key means what it says here.

// OriginalKeys is the part of config.json in the original's spelling.
type OriginalKeys struct {
	// PresetID is the provider menu's choice; `provider` then names only
	// the wire ("anthropic" or "openai").
	PresetID              string            `json:"presetId,omitempty"`
	RegistryURL           string            `json:"registryUrl,omitempty"`
	RegistryPublishers    map[string]string `json:"registryPublishers,omitempty"`
	RegistryAllowUnsigned *bool             `json:"registryAllowUnsigned,omitempty"`
	// Diagnostics is the person's background check, started with the
	// session: a command, or {"command", "auto"}.
	Diagnostics *DiagnosticsConfig `json:"diagnostics,omitempty"`
	// ContinueWhileTodos sends the model back to work when it ends a
	// turn with unfinished tasks on its list: true, or {"maxTurns": N}.
	ContinueWhileTodos *ContinueConfig `json:"continueWhileTodos,omitempty"`
}

// ContinueConfig is the `continueWhileTodos` key: how many times one
// message may be continued (zero: off).
type ContinueConfig struct {
	MaxTurns int `json:"maxTurns"`
}

// DefaultContinueTurns is what `continueWhileTodos: true` allows.
const DefaultContinueTurns = 3

// UnmarshalJSON takes true and false too.
func (c *ContinueConfig) UnmarshalJSON(data []byte) error {
	var on bool
	if json.Unmarshal(data, &on) == nil {
		c.MaxTurns = 0
		if on {
			c.MaxTurns = DefaultContinueTurns
		}
		return nil
	}
	type plain ContinueConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil || p.MaxTurns < 0 || p.MaxTurns > 20 {
		return fmt.Errorf(`field "continueWhileTodos" should be true, false or {"maxTurns": 1–20}`)
	}
	*c = ContinueConfig(p)
	return nil
}

// DiagnosticsConfig is the `diagnostics` key: the check /diagnostics runs,
// started when the session starts; Auto re-runs it after each turn that
// changed files.
type DiagnosticsConfig struct {
	Command string `json:"command"`
	Auto    bool   `json:"auto,omitempty"`
}

// UnmarshalJSON takes the string form too.
func (d *DiagnosticsConfig) UnmarshalJSON(data []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`"`)) {
		return json.Unmarshal(data, &d.Command)
	}
	type plain DiagnosticsConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf(`field "diagnostics" should be a command, or {"command": "…", "auto": true}: %w`, err)
	}
	*d = DiagnosticsConfig(p)
	return nil
}

// ClaudeCodePreset is the preset that takes its endpoint and key from
// Claude Code's own settings.
const ClaudeCodePreset = "claude-code"

// presetID is the preset the file names: presetId when `provider` only
// names the wire it speaks (the original's layout), else `provider`.
func (f File) presetID() string {
	if f.PresetID != "" && (f.Provider == "" || f.Provider == "anthropic" || f.Provider == "openai") {
		return f.PresetID
	}
	return f.Provider
}

// claudeCodeEnv reads the "env" object of Claude Code's settings
// (~/.claude/settings.json in the real home folder: SHIRO_HOME does not
// move it), for the claude-code preset. A missing file is no settings; an
// unreadable one is an error naming it.
func claudeCodeEnv(getenv func(string) string) (map[string]string, error) {
	home := getenv("HOME")
	if home == "" {
		return nil, nil
	}
	path := filepath.Join(home, ".claude", "settings.json")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("provider claude-code: reading %s: %w", path, err)
	}
	var settings struct {
		Env map[string]string `json:"env"`
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		return nil, fmt.Errorf("provider claude-code: %s is not valid settings (%v); fix it, or choose another provider", path, err)
	}
	return settings.Env, nil
}

// applyClaudeCode fills the endpoint and key from Claude Code's settings
// where nothing more specific set them (flags, the environment and
// config.json come first, as in the original).
func (s *Settings) applyClaudeCode(getenv func(string) string, explicitURL bool) error {
	env, err := claudeCodeEnv(getenv)
	if err != nil || env == nil {
		return err
	}
	if url := strings.TrimRight(env["ANTHROPIC_BASE_URL"], "/"); url != "" && !explicitURL {
		s.BaseURL = url
	}
	if key := env["ANTHROPIC_API_KEY"]; key != "" && s.APIKey == "" {
		s.APIKey, s.KeyVar = key, "env.ANTHROPIC_API_KEY in ~/.claude/settings.json"
	}
	return nil
}

// applyOriginalRegistry takes the flat registry keys where the `registry`
// object does not set the same thing.
func (s *Settings) applyOriginalRegistry(f File) {
	var r RegistryConfig
	if f.Registry != nil {
		r = *f.Registry
	}
	if r.URL == "" && f.RegistryURL != "" {
		s.RegistryURL = f.RegistryURL
	}
	if r.Publishers == nil && f.OriginalKeys.RegistryPublishers != nil {
		s.RegistryPublishers = f.OriginalKeys.RegistryPublishers
	}
	if r.AllowUnsigned == nil && f.OriginalKeys.RegistryAllowUnsigned != nil {
		s.RegistryAllowUnsigned = *f.OriginalKeys.RegistryAllowUnsigned
	}
}
