package shellguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// consumers are the packages that judge shell lines through an Analysis
// handed to them, and must never parse a line on their own.
var consumers = []string{"../plugin", "../permission"}

// The guard, the plugins and the permission rules agree on what a line
// does because they read one Analysis. A consumer that called Parse,
// SimpleCommands, Effective, Check or CheckAll (or made its own bash
// parser) would have its own idea again.
func TestConsumersDoNotParseShellThemselves(t *testing.T) {
	banned := map[string]map[string]bool{
		"github.com/shiro-neko/shiro/internal/shellguard": {
			"Parse": true, "SimpleCommands": true, "Effective": true, "Check": true, "CheckAll": true,
		},
		"mvdan.cc/sh/v3/syntax": {"NewParser": true},
	}
	files := 0
	for _, dir := range consumers {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			files++
			for _, call := range bannedCalls(t, path, banned) {
				t.Errorf("%s calls %s; read the shellguard.Analysis it is given instead", call.at, call.name)
			}
		}
	}
	if files == 0 {
		t.Fatalf("no sources found in %v", consumers)
	}
}

type bannedCall struct{ at, name string }

// bannedCalls finds references to the banned functions of the banned
// packages in one Go file, whatever name the file imports them under.
func bannedCalls(t *testing.T, path string, banned map[string]map[string]bool) []bannedCall {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	local := map[string]string{} // the name a file uses for a package → its import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if banned[p] == nil {
			continue
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = p
	}
	var out []bannedCall
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := local[pkg.Name]; ok && banned[p][sel.Sel.Name] {
			out = append(out, bannedCall{at: fset.Position(sel.Pos()).String(), name: pkg.Name + "." + sel.Sel.Name})
		}
		return true
	})
	return out
}

// The scan itself must find what it looks for.
func TestBannedCallsFindsACall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nimport (\n\tsg \"github.com/shiro-neko/shiro/internal/shellguard\"\n\t\"mvdan.cc/sh/v3/syntax\"\n)\n\n" +
		"var _ = sg.Effective\n\nfunc f() { _ = syntax.NewParser(); sg.Analyze(\"ls\") }\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	banned := map[string]map[string]bool{
		"github.com/shiro-neko/shiro/internal/shellguard": {"Effective": true},
		"mvdan.cc/sh/v3/syntax":                           {"NewParser": true},
	}
	got := bannedCalls(t, path, banned)
	if len(got) != 2 || got[0].name != "sg.Effective" || got[1].name != "syntax.NewParser" {
		t.Errorf("found %+v, want sg.Effective and syntax.NewParser", got)
	}
}
