package config_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

// Language servers come from the user's config only: a project's lsp is
// ignored with a warning, as a server is a command run on every edit.
func TestLSPServersComeFromTheUserOnly(t *testing.T) {
	user, warns, err := config.Parse("u.json", []byte(`{"lsp":{"zls":{"command":"zls","files":["*.zig"]},"clangd":{"disabled":true}}}`))
	if err != nil || len(warns) != 0 {
		t.Fatalf("parse: %v %v", err, warns)
	}
	project, _, err := config.Parse("p.json", []byte(`{"lsp":{"evil":{"command":"sh","files":["*.go"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.LSP["zls"].Command != "zls" || !s.LSP["clangd"].Disabled || s.LSP["evil"].Command != "" {
		t.Errorf("lsp settings = %+v", s.LSP)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "project config: lsp can only be set in your own config") {
		t.Errorf("warnings = %q", s.Warnings)
	}
}

func TestLSPSettingsThatCannotWorkNameTheField(t *testing.T) {
	for src, want := range map[string]string{
		`{"lsp":{"x":{"command":"x","files":["src/*.go"]}}}`: `c.json: field "lsp.x.files": "src/*.go" is not a file-name pattern`,
		`{"lsp":{"x":{"command":"x","files":["[a"]}}}`:       `c.json: field "lsp.x.files": "[a" is not a file-name pattern`,
		`{"lsp":{"x":{"args":"--stdio"}}}`:                   `c.json: field "lsp.x.args" should be a list`,
		`{"lsp":[]}`:                                         `c.json: field "lsp" should be an object`,
	} {
		if _, _, err := config.Parse("c.json", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// A field of the wrong type in one server is named with the server, so
// the person knows which entry to fix.
func TestAWrongTypeInAnLSPServerNamesTheServer(t *testing.T) {
	_, _, err := config.Parse("/h/config.json", []byte(`{"lsp": {"gopls": {"args": "-rpc.trace"}}}`))
	want := `/h/config.json: field "lsp.gopls.args" should be a list, not a JSON string`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}
