package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

// A config.json written by the TypeScript original reads without a
// warning and means what it meant there: the flat registry keys, presetId
// over a provider that names only the wire, and the diagnostics check.
// registryAllowUnsigned means what it says (the original read an absent
// one as true).
func TestTheOriginalsConfigReadsUnchanged(t *testing.T) {
	f, warnings, err := config.Parse("config.json", []byte(`{
  "provider": "openai",
  "presetId": "openrouter",
  "baseURL": "https://openrouter.ai/api/v1",
  "model": "some/model",
  "registryUrl": "https://example.test/index.json",
  "registryPublishers": {"acme": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAoI9n0dF7EzEPtos3d4GbM9icLstEzPU4ToCdCMMSaaU=\n-----END PUBLIC KEY-----\n"},
  "diagnostics": "go vet ./..."
}`))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("err = %v, warnings = %q", err, warnings)
	}
	s, err := config.Resolve(f, config.File{}, env(map[string]string{"OPENROUTER_API_KEY": "sk-or"}), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Preset.ID != "openrouter" || s.APIKey != "sk-or" || s.Model != "some/model" {
		t.Errorf("provider: preset %s, key %q, model %s", s.Preset.ID, s.APIKey, s.Model)
	}
	if s.RegistryURL != "https://example.test/index.json" || !strings.Contains(s.RegistryPublishers["acme"], "BEGIN PUBLIC KEY") || s.RegistryAllowUnsigned {
		t.Errorf("registry: %s %v allowUnsigned=%v", s.RegistryURL, s.RegistryPublishers, s.RegistryAllowUnsigned)
	}
	if s.Diagnostics == nil || s.Diagnostics.Command != "go vet ./..." || s.Diagnostics.Auto {
		t.Errorf("diagnostics = %+v", s.Diagnostics)
	}
	// The object form, and the `registry` object winning over the flat keys.
	f, _, err = config.Parse("config.json", []byte(`{"diagnostics": {"command": "make check", "auto": true},
		"registry": {"url": "https://nested.test/i.json"}, "registryUrl": "https://flat.test/i.json", "registryAllowUnsigned": true}`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ = config.Resolve(f, config.File{}, env(nil), config.Flags{})
	if s.Diagnostics == nil || s.Diagnostics.Command != "make check" || !s.Diagnostics.Auto || s.RegistryURL != "https://nested.test/i.json" || !s.RegistryAllowUnsigned {
		t.Errorf("settings = %+v %+v", s.Diagnostics, s.RegistryURL)
	}
	if _, _, err := config.Parse("/h/config.json", []byte(`{"diagnostics": {"cmd": "x"}}`)); err == nil || !strings.Contains(err.Error(), "diagnostics") {
		t.Errorf("a misspelt diagnostics field: err = %v", err)
	}
	// continueWhileTodos: true is the original's three extra turns.
	for raw, want := range map[string]int{`true`: 3, `false`: 0, `{"maxTurns": 5}`: 5} {
		f, _, err := config.Parse("config.json", []byte(`{"continueWhileTodos": `+raw+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := config.Resolve(f, config.File{}, env(nil), config.Flags{}); s.ContinueWhileTasks != want {
			t.Errorf("continueWhileTodos %s = %d, want %d", raw, s.ContinueWhileTasks, want)
		}
	}
	if _, _, err := config.Parse("/h/config.json", []byte(`{"continueWhileTodos": {"maxTurns": 99}}`)); err == nil || !strings.Contains(err.Error(), "continueWhileTodos") {
		t.Errorf("maxTurns 99: err = %v", err)
	}
}

// The claude-code preset takes the endpoint and key from Claude Code's
// settings in the real home folder, below flags, the environment and
// config.json.
func TestClaudeCodePresetReadsClaudeCodesSettings(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"),
		[]byte(`{"env": {"ANTHROPIC_BASE_URL": "https://gateway.test/v1/", "ANTHROPIC_API_KEY": "sk-claude"}, "permissions": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	original := config.File{Provider: "anthropic", OriginalKeys: config.OriginalKeys{PresetID: "claude-code"}}
	vars := map[string]string{"HOME": home, "SHIRO_HOME": t.TempDir()}
	s, err := config.Resolve(original, config.File{}, env(vars), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Preset.ID != "claude-code" || s.BaseURL != "https://gateway.test/v1" || s.APIKey != "sk-claude" || !strings.Contains(s.KeyVar, ".claude/settings.json") {
		t.Fatalf("settings: preset %s, url %s, key %q (%s)", s.Preset.ID, s.BaseURL, s.APIKey, s.KeyVar)
	}
	vars["ANTHROPIC_API_KEY"], vars["SHIRO_BASE_URL"] = "sk-env", "https://mine.test/v1"
	s, _ = config.Resolve(original, config.File{}, env(vars), config.Flags{})
	if s.APIKey != "sk-env" || s.BaseURL != "https://mine.test/v1" {
		t.Fatalf("the environment must win: url %s, key %q", s.BaseURL, s.APIKey)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"env": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Resolve(config.File{Provider: "claude-code"}, config.File{}, env(map[string]string{"HOME": home}), config.Flags{}); err == nil || !strings.Contains(err.Error(), ".claude/settings.json") {
		t.Fatalf("a broken settings file: err = %v", err)
	}
}
