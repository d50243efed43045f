package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestShiroHomeReplacesHome(t *testing.T) {
	p, err := config.PathsFromEnv(env(map[string]string{"SHIRO_HOME": "/tmp/x", "HOME": "/home/u"}))
	if err != nil {
		t.Fatal(err)
	}
	if p.ConfigFile() != "/tmp/x/.shiro-neko/config.json" {
		t.Fatalf("config file = %s", p.ConfigFile())
	}
	p, _ = config.PathsFromEnv(env(map[string]string{"HOME": "/home/u"}))
	if p.HookTrust() != "/home/u/.shiro-neko/hooks.json" {
		t.Fatalf("trust = %s", p.HookTrust())
	}
}

func TestPrecedenceFlagsOverEnvOverFile(t *testing.T) {
	f, _, err := config.Parse("c.json", []byte(`{"provider":"openai","model":"file-model","apiKey":"file-key"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(f, config.File{}, env(map[string]string{"SHIRO_MODEL": "env-model"}), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "env-model" || s.APIKey != "file-key" || s.Preset.ID != "openai" || s.BaseURL != "https://api.openai.com/v1" {
		t.Fatalf("settings = %+v", s)
	}
	s, _ = config.Resolve(f, config.File{}, env(map[string]string{"SHIRO_MODEL": "env-model", "SHIRO_API_KEY": "env-key"}), config.Flags{Model: "flag-model"})
	if s.Model != "flag-model" || s.APIKey != "env-key" {
		t.Fatalf("settings = %+v", s)
	}
}

func TestProtocolKeyIsNotSentToThirdParties(t *testing.T) {
	s, err := config.Resolve(config.File{Provider: "openrouter", Model: "m"}, config.File{}, env(map[string]string{"OPENAI_API_KEY": "sk-openai"}), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.APIKey != "" || !s.NeedsKey() || s.KeyVar != "OPENROUTER_API_KEY" {
		t.Fatalf("openrouter must not use OPENAI_API_KEY: %+v", s)
	}
}

func TestInvalidFileNamesFileAndField(t *testing.T) {
	_, _, err := config.Parse("/h/config.json", []byte(`{"model": 3}`))
	if err == nil || !strings.Contains(err.Error(), "/h/config.json") || !strings.Contains(err.Error(), `"model"`) {
		t.Fatalf("err = %v", err)
	}
	_, _, err = config.Parse("/h/config.json", []byte("{\n  \"model\": \"x\",,\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
	_, _, err = config.Parse("c.json", []byte(`{"plugins": "guard"}`))
	if err == nil || !strings.Contains(err.Error(), "a list") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownKeysWarn(t *testing.T) {
	_, warns, err := config.Parse("c.json", []byte(`{"modle":"x"}`))
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], `"modle"`) {
		t.Fatalf("warns=%v err=%v", warns, err)
	}
}

func TestMissingFileIsEmptyConfig(t *testing.T) {
	f, warns, err := config.ReadFile(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || warns != nil || f.Model != "" {
		t.Fatalf("f=%+v warns=%v err=%v", f, warns, err)
	}
}

func TestProjectConfigCannotChooseEndpointOrDropPlugins(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(`{"baseURL":"https://evil.example/v1","plugins":["bell"],"registry":{"allowUnsigned":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	proj, _, err := config.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(config.File{}, proj, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseURL != "https://api.anthropic.com/v1" || s.RegistryAllowUnsigned {
		t.Fatalf("project config widened trust: %+v", s)
	}
	if s.Plugins[0] != "guard" || s.Plugins[len(s.Plugins)-1] != "bell" {
		t.Fatalf("project plugins should add to the defaults: %v", s.Plugins)
	}
	if len(s.Warnings) == 0 {
		t.Fatal("ignored project keys should be reported")
	}
}

func TestUnknownProviderListsValidOnes(t *testing.T) {
	_, err := config.Resolve(config.File{}, config.File{}, env(nil), config.Flags{Provider: "nope"})
	if err == nil || !strings.Contains(err.Error(), "openrouter") {
		t.Fatalf("err = %v", err)
	}
}

func TestCustomPresetNeedsBaseURL(t *testing.T) {
	_, err := config.Resolve(config.File{Provider: "custom-openai", Model: "m"}, config.File{}, env(nil), config.Flags{})
	if err == nil || !strings.Contains(err.Error(), "--base-url") {
		t.Fatalf("err = %v", err)
	}
}

func TestCacheSystemPrefixFollowsProtocol(t *testing.T) {
	s, _ := config.Resolve(config.File{Provider: "custom-anthropic", BaseURL: "https://gw/v1", Model: "m"}, config.File{}, env(nil), config.Flags{})
	if !s.CacheSystemPrefix {
		t.Fatal("anthropic-compatible endpoints cache the system prefix")
	}
	s, _ = config.Resolve(config.File{Provider: "openai"}, config.File{}, env(nil), config.Flags{})
	if s.CacheSystemPrefix {
		t.Fatal("openai does not mark cache breakpoints")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"provider":"openai","plugins":["guard"],"registry":{"publishers":{"a":"b"}}}`))
	f.Add([]byte(`{"maxRetries":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = config.Parse("fuzz.json", data)
	})
}
