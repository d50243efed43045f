package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
)

// Update merges into the file: other members stay, an empty value removes
// one, the result is private and reads back as the same settings.
func TestUpdateMergesAndIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".shiro-neko", "config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"maxRetries": 2, "baseURL": "https://old/v1", "permission": {"bash": "ask"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := config.Update(path, map[string]string{"provider": "custom-openai", "apiKey": "sk-<x>", "model": "m", "baseURL": ""})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"apiKey\": \"sk-<x>\",\n  \"maxRetries\": 2,\n  \"model\": \"m\",\n  \"permission\": {\n    \"bash\": \"ask\"\n  },\n  \"provider\": \"custom-openai\"\n}\n"
	if string(data) != want {
		t.Fatalf("file =\n%s\nwant\n%s", data, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	f, warns, err := config.ReadFile(path)
	if err != nil || len(warns) != 0 || f.APIKey != "sk-<x>" || f.BaseURL != "" || *f.MaxRetries != 2 {
		t.Fatalf("read back %+v, %v, %v", f, warns, err)
	}
}

// A file that is not a JSON object is never overwritten.
func TestUpdateLeavesABrokenFileAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{\"model\": \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := config.Update(path, map[string]string{"model": "m"})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not changed") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{\"model\": \n" {
		t.Fatalf("file changed: %q", data)
	}
}

// The message names each place a key can go once: a preset without a
// variable of its own does not name SHIRO_API_KEY twice.
func TestMissingKeyNamesEachPlaceOnce(t *testing.T) {
	for _, c := range []struct {
		preset, keyVar, want string
	}{
		{"custom-openai", "SHIRO_API_KEY", "no API key for custom-openai: set SHIRO_API_KEY, or apiKey in /h/config.json (in the terminal UI, /provider sets it up)"},
		{"anthropic", "ANTHROPIC_API_KEY", "no API key for anthropic: set ANTHROPIC_API_KEY or SHIRO_API_KEY, or apiKey in /h/config.json (in the terminal UI, /provider sets it up)"},
	} {
		p, err := llm.PresetByID(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		got := config.Settings{Preset: p, KeyVar: c.keyVar}.MissingKey("/h/config.json")
		if got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
		if strings.Count(got, "SHIRO_API_KEY") != 1 {
			t.Errorf("%q names SHIRO_API_KEY more than once", got)
		}
	}
}
