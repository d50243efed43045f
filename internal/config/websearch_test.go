package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A webSearch.url that cannot work is refused with the file and the
// field named; a good one is read.
func TestWebSearchURLIsChecked(t *testing.T) {
	for body, want := range map[string]string{
		`{"webSearch":{"url":"https://search.example.com/?q="}}`: `has no {query}`,
		`{"webSearch":{"url":"ftp://x.example.com/{query}"}}`:    `not an http or https URL`,
		`{"webSearch":{"url":"https://[::1/{query}"}}`:           `not a valid URL`,
	} {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `field "webSearch.url"`) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err %v, want %q", body, err, want)
		}
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"webSearch":{"url":"https://s.example.com/?q={query}","local":true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, warnings, err := ReadFile(path)
	if err != nil || len(warnings) > 0 || f.WebSearch == nil || !*f.WebSearch.Local {
		t.Fatalf("%+v %v %v", f.WebSearch, warnings, err)
	}
}
