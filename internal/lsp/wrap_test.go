package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/tools/edit"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// The real edit_file tool, wrapped, returns the type error its edit
// introduced in a Go and in a TypeScript file, after its own report; its
// preview survives the wrapping.
func TestEditToolResultCarriesNewErrors(t *testing.T) {
	cases := []struct {
		server, fixture, file, old, new, want string
	}{
		{"gopls", "go", "shapes/shapes.go", "return w * h", "return w * h * \"x\"", "shapes/shapes.go:6:"},
		{"typescript", "ts", "shapes.ts", "return w * h;", "return w * h * \"x\";", "shapes.ts:2:"},
	}
	for _, c := range cases {
		t.Run(c.server, func(t *testing.T) {
			root := fixture(t, c.fixture)
			m := needServer(t, c.server, root)
			env, err := workspace.New(root)
			if err != nil {
				t.Fatal(err)
			}
			list := m.WithDiagnostics(edit.Tools(env))
			raw, _ := json.Marshal(map[string]any{"path": c.file, "oldString": c.old, "newString": c.new})
			p, err := tooltest.Named(t, list, "edit_file").Prepare(raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := p.(tool.Previewer); !ok {
				t.Fatal("the wrapped edit_file lost its preview")
			}
			out := tooltest.Ok(t, tooltest.Named(t, list, "edit_file"), map[string]any{"path": c.file, "oldString": c.old, "newString": c.new})
			if !strings.Contains(out, "new errors") || !strings.Contains(out, c.want) {
				t.Fatalf("edit_file's result does not carry the new error at %s:\n%s", c.want, out)
			}
			out = tooltest.Ok(t, tooltest.Named(t, list, "edit_file"), map[string]any{"path": c.file, "oldString": c.new, "newString": c.old})
			if strings.Contains(out, "new errors") {
				t.Fatalf("the edit that fixed the error still reports:\n%s", out)
			}
		})
	}
}

// With a server found, the pattern-based navigation tools stay and say
// which files the language server answers for; other tools are untouched.
func TestPatternToolsSayTheLanguageServerIsActive(t *testing.T) {
	m := New(Options{Root: t.TempDir(), Servers: []Available{{Spec: Spec{Name: "gopls", Files: []string{"*.go"}}, Path: "/bin/gopls"}}})
	list := m.WithDiagnostics([]tool.Tool{
		tool.New(tool.Def[diagnosticsInput]{Info: tool.Info{Name: "find_symbol", Description: "Find a declaration.", Effect: tool.Reads, ByPattern: true}}),
		tool.New(tool.Def[diagnosticsInput]{Info: tool.Info{Name: "grep", Description: "Search.", Effect: tool.Reads}}),
	})
	if d := list[0].Info().Description; !strings.Contains(d, "for *.go files prefer definition, references and symbols") {
		t.Fatalf("find_symbol's description: %q", d)
	}
	if d := list[1].Info().Description; d != "Search." {
		t.Fatalf("grep's description changed: %q", d)
	}
	if New(Options{}).WithDiagnostics(list[1:])[0] != list[1] {
		t.Fatal("without a server the tools are not passed through as they are")
	}
}
