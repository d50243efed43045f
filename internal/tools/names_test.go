package tools_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

// notToolNames are the places outside the tools where a word that is also
// a tool's name means something else. Each is listed with what it means,
// so a new entry has to be argued for.
func notToolNames() map[string]string {
	return map[string]string{
		"internal/permission\x00ask":  "the decision ask",
		"internal/hooks\x00ask":       "the decision ask, as a Claude Code hook's permissionDecision",
		"internal/tool\x00ask":        "the decision ask, as an effect's default",
		"internal/permission\x00bash": "the bash program, in the list of programs that run commands",
		"internal/commands\x00bash":   "the /bash slash command",
		"internal/app\x00skill":       "the kind of a load problem",
		"internal/commands\x00forget": "the verb of /memory forget",
	}
}

// Nothing outside the tools names a tool: permission defaults, the prompt,
// subagent filters and front ends read what a tool says of itself. A
// package that defines tools may name its own in their definitions; every
// other string that equals a tool's name, in a package that handles tools
// or calls, fails this test.
func TestNoPackageButTheToolsNamesATool(t *testing.T) {
	names := registeredNames(t)
	root := moduleRoot(t)
	allowed := notToolNames()
	var found []string
	for pkg, files := range packages(t, root) {
		own := definedIn(files)
		for _, pf := range files {
			if !importsAny(pf.file, []string{"/internal/tool\"", "/internal/protocol\"", "/internal/agent\""}) {
				continue
			}
			ast.Inspect(pf.file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !names[s] || own[s] {
					return true
				}
				if _, ok := allowed[pkg+"\x00"+s]; ok {
					return true
				}
				found = append(found, fmt.Sprintf("%s: %q", pf.fset.Position(lit.Pos()), s))
				return true
			})
		}
	}
	slices.Sort(found)
	if len(found) > 0 {
		t.Fatalf("tool names outside the tools (describe the tool instead, in tool.Info):\n%s", strings.Join(found, "\n"))
	}
}

type parsedFile struct {
	fset *token.FileSet
	file *ast.File
}

// packages parses the non-test Go files under internal/, by package
// directory, leaving out the tool belt and families, which define tools.
func packages(t *testing.T, root string) map[string][]parsedFile {
	t.Helper()
	out := map[string][]parsedFile{}
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(rel, "internal/tools") || d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		out[pkg] = append(out[pkg], parsedFile{fset, f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// definedIn are the names of the tools a package defines: the Name of a
// tool.Info composite literal, given as a string or as a constant of the
// package. A package may use its own tools' names; no other may.
func definedIn(files []parsedFile) map[string]bool {
	consts := map[string]string{}
	for _, pf := range files {
		for _, decl := range pf.file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	own := map[string]bool{}
	for _, pf := range files {
		ast.Inspect(pf.file, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || !isInfoType(cl.Type) {
				return true
			}
			for _, el := range cl.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != "Name" {
					continue
				}
				switch v := kv.Value.(type) {
				case *ast.BasicLit:
					s, _ := strconv.Unquote(v.Value)
					own[s] = true
				case *ast.Ident:
					if s, ok := consts[v.Name]; ok {
						own[s] = true
					}
				}
			}
			return true
		})
	}
	return own
}

func isInfoType(e ast.Expr) bool {
	switch t := e.(type) {
	case *ast.SelectorExpr:
		return t.Sel.Name == "Info"
	case *ast.Ident:
		return t.Name == "Info"
	}
	return false
}

func importsAny(f *ast.File, suffixes []string) bool {
	for _, imp := range f.Imports {
		for _, s := range suffixes {
			if strings.HasSuffix(imp.Path.Value, s) {
				return true
			}
		}
	}
	return false
}

// registeredNames are the names of every tool a full session registers.
func registeredNames(t *testing.T) map[string]bool {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Attended: true, Provider: replay.New("t", nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	names := map[string]bool{}
	for _, n := range a.Tools.Names() {
		names[n] = true
	}
	if len(names) < 40 || !slices.Contains(a.Tools.Names(), "bash") {
		t.Fatalf("the registry looks incomplete: %v", a.Tools.Names())
	}
	return names
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
