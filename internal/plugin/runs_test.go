package plugin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// TestRunsProgramsMatchesTheRegistry keeps RunsPrograms in step with the
// registry: a builtin runs programs exactly when its constructor is given
// the Runner (BuiltinDeps.Run), the only way a builtin starts one.
func TestRunsProgramsMatchesTheRegistry(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "builtin.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || len(lit.Elts) != 2 {
			return true
		}
		name, ok := lit.Elts[0].(*ast.BasicLit)
		if !ok || name.Kind != token.STRING {
			return true
		}
		s, _ := strconv.Unquote(name.Value)
		usesRun := false
		ast.Inspect(lit.Elts[1], func(m ast.Node) bool {
			if sel, ok := m.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" {
				usesRun = true
			}
			return true
		})
		seen++
		if usesRun != RunsPrograms(s) {
			t.Errorf("builtin %q: given the Runner %v, RunsPrograms says %v", s, usesRun, RunsPrograms(s))
		}
		return false
	})
	if seen != len(BuiltinNames()) {
		t.Fatalf("found %d registry entries in builtin.go, want %d", seen, len(BuiltinNames()))
	}
}
