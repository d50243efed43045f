package tooltest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

// update rewrites the schema goldens instead of comparing with them:
// `go test ./internal/tools/... -run Schemas -update`. The flag is
// registered once, by the test binary that links this package.
var update = flag.Bool("update", false, "rewrite the schema goldens in testdata from the tools' schemas")

// GoldenFile is where a package's schema golden lives, relative to the
// package's directory (where go test runs).
const GoldenFile = "testdata/schemas.golden.json"

// SchemasGolden checks the schemas the tools derive from their input
// types against the golden file, one JSON object from tool name to
// schema, written by `-update` and reviewed in the diff: a schema changes
// only where someone meant it to. Each schema must also resolve as tool
// input is checked, and the tools must register together. maxBytes, when
// above zero, caps what a tool's name, description and schema cost on
// every request.
func SchemasGolden(t *testing.T, tools []tool.Tool, maxBytes int) {
	t.Helper()
	if _, err := tool.NewRegistry(tools...); err != nil {
		t.Fatal(err)
	}
	got := goldenOf(t, tools)
	if *update {
		if err := os.MkdirAll(filepath.Dir(GoldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(GoldenFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(GoldenFile)
	if err != nil {
		t.Fatalf("%v: write it with `go test -run %s -update`", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the schemas differ from %s (if the change is meant, run `go test -run %s -update` and review the diff):\n got %s\nwant %s",
			GoldenFile, t.Name(), got, want)
	}
	for _, tl := range tools {
		info := tl.Info()
		if _, err := tool.SchemaOf(info.Schema); err != nil {
			t.Errorf("%s: the schema does not resolve: %v", info.Name, err)
		}
		n := len(info.Name) + len(info.Description) + len(info.Schema)
		t.Logf("%-13s %4d bytes", info.Name, n)
		if maxBytes > 0 && n > maxBytes {
			t.Errorf("%s costs %d bytes on every request; keep it under %d", info.Name, n, maxBytes)
		}
	}
}

// goldenOf renders the tools' schemas as the golden file holds them:
// sorted by name, indented, so that a diff shows the member that moved.
func goldenOf(t *testing.T, tools []tool.Tool) []byte {
	t.Helper()
	byName := map[string]json.RawMessage{}
	for _, tl := range tools {
		info := tl.Info()
		if !json.Valid(info.Schema) {
			t.Fatalf("%s: the schema is not JSON: %s", info.Name, info.Schema)
		}
		byName[info.Name] = info.Schema
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, n := range names {
		key, _ := json.Marshal(n)
		var v bytes.Buffer
		if err := json.Indent(&v, byName[n], "  ", "  "); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		b.WriteString("  " + string(key) + ": " + v.String())
		if i < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}
