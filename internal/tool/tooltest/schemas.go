package tooltest

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
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
	byName := map[string]json.RawMessage{}
	for _, tl := range tools {
		byName[tl.Info().Name] = tl.Info().Schema
	}
	GoldenSchemas(t, byName)
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

// GoldenSchemas checks schemas, each under a name of the test's choosing
// (a tool's name, or the offer it is made in when one tool's schema
// varies), against the golden file; `-update` rewrites it.
func GoldenSchemas(t *testing.T, byName map[string]json.RawMessage) {
	t.Helper()
	got := goldenOf(t, byName)
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
}

// goldenOf renders the schemas as the golden file holds them:
// sorted by name, indented, so that a diff shows the member that moved.
func goldenOf(t *testing.T, byName map[string]json.RawMessage) []byte {
	t.Helper()
	for n, schema := range byName {
		if !json.Valid(schema) {
			t.Fatalf("%s: the schema is not JSON: %s", n, schema)
		}
	}
	names := slices.Sorted(maps.Keys(byName))
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
