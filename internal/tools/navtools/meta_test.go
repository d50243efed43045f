package navtools

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools"
)

func TestMeta(t *testing.T) {
	sets := map[string]tools.Set{
		"find_symbol": tools.SetNav, "json_query": tools.SetNav,
	}
	mutating := map[string]bool{
		"insert_lines": true, "delete_lines": true, "replace_lines": true,
		"append_file": true, "prepend_file": true, "run_checks": true,
	}
	ts := Tools(nil)
	if len(ts) != 18 {
		t.Errorf("%d tools", len(ts))
	}
	if _, err := tools.NewRegistry(ts...); err != nil {
		t.Fatal(err)
	}
	for _, tool := range ts {
		spec, m := tool.Spec(), tool.Meta()
		want, ok := sets[spec.Name]
		if !ok {
			want = tools.SetExtra
		}
		if m.Set != want {
			t.Errorf("%s: set %q, want %q", spec.Name, m.Set, want)
		}
		if m.Mutating != mutating[spec.Name] {
			t.Errorf("%s: mutating %v", spec.Name, m.Mutating)
		}
		if m.Guidance == "" || spec.Description == "" {
			t.Errorf("%s: no guidance or description", spec.Name)
		}
		var schema struct {
			Type                 string         `json:"type"`
			Properties           map[string]any `json:"properties"`
			Required             []string       `json:"required"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		}
		if err := json.Unmarshal(spec.Schema, &schema); err != nil {
			t.Errorf("%s: schema: %v", spec.Name, err)
			continue
		}
		if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: schema is not a strict object", spec.Name)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", spec.Name, r)
			}
		}
		in := json.RawMessage(`{"path":"x/y.go","line":1,"text":"t"}`)
		if mutating[spec.Name] && spec.Name != "run_checks" {
			if got := m.Writes(in); !reflect.DeepEqual(got, []string{"x/y.go"}) {
				t.Errorf("%s: writes %q", spec.Name, got)
			}
		} else if m.Writes != nil {
			t.Errorf("%s: read-only tool reports writes", spec.Name)
		}
		if m.Commands != nil && spec.Name != "run_checks" {
			t.Errorf("%s: has commands", spec.Name)
		}
		if _, hasPath := schema.Properties["path"]; hasPath != (m.Subjects != nil) && spec.Name != "run_checks" {
			t.Errorf("%s: path property %v but subjects %v", spec.Name, hasPath, m.Subjects != nil)
		}
	}
}

// TestSpecBytes measures what the tools cost on every request: name,
// description and schema. `go test -run SpecBytes -v` prints the table.
func TestSpecBytes(t *testing.T) {
	perSet := map[tools.Set]int{}
	count := map[tools.Set]int{}
	for _, tool := range Tools(nil) {
		s := tool.Spec()
		n := len(s.Name) + len(s.Description) + len(s.Schema)
		perSet[tool.Meta().Set] += n
		count[tool.Meta().Set]++
		t.Logf("%-14s %4d bytes", s.Name, n)
		if n > 400 {
			t.Errorf("%s costs %d bytes on every request; keep it under 400", s.Name, n)
		}
	}
	for set, n := range perSet {
		t.Logf("set %-6s %5d bytes in %d tools (%d a tool)", set, n, count[set], n/count[set])
	}
}
