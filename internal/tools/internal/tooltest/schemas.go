// Package tooltest holds the checks every tool family's tests make of
// the tools it builds.
package tooltest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

// SchemasMatch checks the schemas derived from the tools' input types
// against the hand-written ones they replaced (old, by tool name): the
// same tools, every schema equal member by member as JSON, and each one
// resolving as tool input is checked. maxBytes, when above zero, caps
// what a tool's name, description and schema cost on every request.
// `go test -run Schemas -v` logs the bytes each tool costs before and
// after.
func SchemasMatch(t *testing.T, tools []tool.Tool, old map[string]string, maxBytes int) {
	t.Helper()
	if len(tools) != len(old) {
		t.Fatalf("%d tools, %d old schemas", len(tools), len(old))
	}
	if _, err := tool.NewRegistry(tools...); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		info := tl.Info()
		was, ok := old[info.Name]
		if !ok {
			t.Errorf("%s: no old schema to compare with", info.Name)
			continue
		}
		var got, want any
		if err := json.Unmarshal(info.Schema, &got); err != nil {
			t.Errorf("%s: the schema is not JSON: %v", info.Name, err)
			continue
		}
		if err := json.Unmarshal([]byte(was), &want); err != nil {
			t.Fatalf("%s: the old schema is not JSON: %v", info.Name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: schema\n got %s\nwant %s", info.Name, info.Schema, was)
		}
		if _, err := tool.SchemaOf(info.Schema); err != nil {
			t.Errorf("%s: the schema does not resolve: %v", info.Name, err)
		}
		before := len(info.Name) + len(info.Description) + len(was)
		after := len(info.Name) + len(info.Description) + len(info.Schema)
		t.Logf("%-13s %4d -> %4d bytes", info.Name, before, after)
		if maxBytes > 0 && after > maxBytes {
			t.Errorf("%s costs %d bytes on every request; keep it under %d", info.Name, after, maxBytes)
		}
	}
}
