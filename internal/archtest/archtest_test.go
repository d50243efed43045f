// Package archtest checks that docs/architecture.md tells the truth about
// the code: its table of imports must list exactly the internal imports of
// every package, no more and no fewer.
package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/shiro-neko/shiro/"

func TestArchitectureDocMatchesTheImports(t *testing.T) {
	root := filepath.Join("..", "..")
	documented := readTable(t, filepath.Join(root, "docs", "architecture.md"))
	actual := listImports(t, root)
	for pkg, deps := range actual {
		doc, ok := documented[pkg]
		if !ok {
			t.Errorf("docs/architecture.md does not list %s (it imports: %s)", pkg, strings.Join(deps, " "))
			continue
		}
		if !slices.Equal(doc, deps) {
			t.Errorf("%s imports %q, docs/architecture.md says %q", pkg, deps, doc)
		}
	}
	for pkg := range documented {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package", pkg)
		}
	}
}

// short names a package the way the doc does: its path below the module,
// without the leading internal/.
func short(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "internal/")
}

// readTable reads the "pkg -> dep dep" lines between the imports markers.
func readTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "imports:begin"):
			in = true
			continue
		case strings.Contains(line, "imports:end"):
			in = false
		}
		if !in || !strings.Contains(line, "->") {
			continue
		}
		pkg, deps, _ := strings.Cut(line, "->")
		list := strings.Fields(deps)
		slices.Sort(list)
		out[strings.TrimSpace(pkg)] = list
	}
	if len(out) == 0 {
		t.Fatal("no import table between the imports:begin and imports:end markers")
	}
	return out
}

// listImports asks the go command for every package's non-test imports
// inside the module, archtest itself left out.
func listImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	res := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p.ImportPath, "/archtest") {
			continue
		}
		deps := []string{}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				deps = append(deps, short(imp))
			}
		}
		slices.Sort(deps)
		res[short(p.ImportPath)] = deps
	}
	return res
}
