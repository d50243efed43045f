package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/config"
)

// "provider" is a preset name, or an object that adds the connection's
// settings to one; the string form keeps the defaults.
func TestProviderObjectForm(t *testing.T) {
	f, warnings, err := config.Parse("c.json", []byte(`{"provider":{"id":"openai","api":"responses","idleTimeoutSeconds":120},"model":"gpt-5"}`))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	s, err := config.Resolve(f, config.File{}, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Preset.ID != "openai" || s.ProviderAPI != "responses" || s.IdleTimeout != 120*time.Second || s.Model != "gpt-5" {
		t.Fatalf("settings: preset %s, api %q, idle %v, model %s", s.Preset.ID, s.ProviderAPI, s.IdleTimeout, s.Model)
	}

	f, _, _ = config.Parse("c.json", []byte(`{"provider":"openai"}`))
	s, _ = config.Resolve(f, config.File{}, env(nil), config.Flags{})
	if s.Preset.ID != "openai" || s.ProviderAPI != "" || s.IdleTimeout != config.DefaultIdleTimeout || config.DefaultIdleTimeout != 90*time.Second {
		t.Fatalf("string form: preset %s, api %q, idle %v", s.Preset.ID, s.ProviderAPI, s.IdleTimeout)
	}

	// Without an id the preset comes from elsewhere, as without the key.
	f, _, _ = config.Parse("c.json", []byte(`{"provider":{"idleTimeoutSeconds":5}}`))
	s, _ = config.Resolve(f, config.File{}, env(map[string]string{"SHIRO_PROVIDER": "openai"}), config.Flags{})
	if s.Preset.ID != "openai" || s.IdleTimeout != 5*time.Second {
		t.Fatalf("no id: preset %s, idle %v", s.Preset.ID, s.IdleTimeout)
	}
}

func TestProviderObjectErrorsNameTheField(t *testing.T) {
	for body, want := range map[string]string{
		`{"provider":{"api":"completions"}}`:         `"provider.api" must be "chat" or "responses"`,
		`{"provider":{"idleTimeoutSeconds":0}}`:      `"provider.idleTimeoutSeconds" must be between 1 and 3600`,
		`{"provider":{"idleTimeoutSeconds":"soon"}}`: `field "provider"`,
		`{"provider":{"id":"openai","timeout":30}}`:  `unknown field "timeout"`,
	} {
		_, _, err := config.Parse("c.json", []byte(body))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "c.json") {
			t.Errorf("%s: err = %v, want it to say %s", body, err, want)
		}
	}
}

// A project cannot choose how your provider is reached.
func TestProjectCannotSetProviderOptions(t *testing.T) {
	project, _, err := config.Parse("p.json", []byte(`{"provider":{"api":"chat","idleTimeoutSeconds":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(config.File{}, project, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.ProviderAPI != "" || s.IdleTimeout != config.DefaultIdleTimeout || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "provider") {
		t.Fatalf("api %q, idle %v, warnings %v", s.ProviderAPI, s.IdleTimeout, s.Warnings)
	}
}

// Choosing another preset (the /provider command) keeps the connection's
// settings of the object form.
func TestUpdateKeepsProviderOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"provider":{"id":"openai","idleTimeoutSeconds":30}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.Update(path, map[string]string{"provider": "openrouter"}); err != nil {
		t.Fatal(err)
	}
	f, _, err := config.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Provider != "openrouter" || f.ProviderOptions.IdleTimeoutSeconds == nil || *f.ProviderOptions.IdleTimeoutSeconds != 30 {
		t.Fatalf("provider %q, options %+v", f.Provider, f.ProviderOptions)
	}
}
