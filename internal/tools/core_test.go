package tools

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestFileToolsSpecsAndMeta(t *testing.T) {
	want := map[string]struct {
		set      Set
		mutating bool
		required []string
	}{
		"read_file":       {SetCore, false, []string{"path"}},
		"read_many_files": {SetCore, false, []string{"files"}},
		"write_file":      {SetCore, true, []string{"path", "content"}},
		"edit_file":       {SetCore, true, []string{"path", "oldString", "newString"}},
		"multi_edit":      {SetEditPlus, true, []string{"path", "edits"}},
		"list_dir":        {SetEditPlus, false, nil},
		"glob":            {SetCore, false, []string{"pattern"}},
		"grep":            {SetCore, false, []string{"pattern"}},
	}
	tools := FileTools(nil)
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	if _, err := NewRegistry(tools...); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		spec, meta := tool.Spec(), tool.Meta()
		w, ok := want[spec.Name]
		if !ok {
			t.Errorf("unexpected tool %s", spec.Name)
			continue
		}
		if meta.Set != w.set || meta.Mutating != w.mutating || meta.Guidance == "" || meta.Subjects == nil {
			t.Errorf("%s: meta %+v", spec.Name, meta)
		}
		if (meta.Writes != nil) != w.mutating {
			t.Errorf("%s: Writes set %v, mutating %v", spec.Name, meta.Writes != nil, w.mutating)
		}
		var schema struct {
			Type                 string         `json:"type"`
			Properties           map[string]any `json:"properties"`
			Required             []string       `json:"required"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		}
		if err := json.Unmarshal(spec.Schema, &schema); err != nil {
			t.Errorf("%s: schema is not JSON: %v", spec.Name, err)
			continue
		}
		if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: schema must be a closed object", spec.Name)
		}
		if !slices.Equal(schema.Required, w.required) {
			t.Errorf("%s: required %v, want %v", spec.Name, schema.Required, w.required)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %s is not a property", spec.Name, r)
			}
		}
		// Every byte is sent with every request.
		if n := len(spec.Description) + len(spec.Schema); n > 550 {
			t.Errorf("%s: description+schema is %d bytes, keep it under 550", spec.Name, n)
		}
	}
}

func TestSubjects(t *testing.T) {
	cases := []struct {
		tool, input string
		want        []string
	}{
		{"read_file", `{"path":"a.go"}`, []string{"a.go"}},
		{"list_dir", `{}`, []string{"."}},
		{"read_many_files", `{"files":[{"path":"a"},{"path":".env"}]}`, []string{"a", ".env"}},
		{"glob", `{"pattern":"**/*.go"}`, []string{"**/*.go"}},
		{"grep", `{"pattern":"TODO","include":"*.go"}`, []string{"TODO"}},
		{"grep", `not json`, nil},
	}
	for _, c := range cases {
		got := ftTool(t, c.tool).Meta().Subjects(json.RawMessage(c.input))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: subjects %q, want %q", c.tool, c.input, got, c.want)
		}
	}
}

func TestToolsUseConstructorEnvWhenCallHasNone(t *testing.T) {
	env := ftEnv(t, map[string]string{"a.txt": "hi\n"})
	for _, tool := range FileTools(env) {
		if tool.Spec().Name != "read_file" {
			continue
		}
		out, err := tool.Run(t.Context(), Call{Input: json.RawMessage(`{"path":"a.txt"}`)})
		if err != nil || out != "1: hi" {
			t.Errorf("got %q, %v", out, err)
		}
	}
	if _, err := ftTool(t, "read_file").Run(t.Context(), Call{Input: json.RawMessage(`{"path":"a.txt"}`)}); err == nil {
		t.Error("a call with no workspace must fail")
	}
}
