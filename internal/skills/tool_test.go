package skills

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools"
)

func runSkill(t *testing.T, tool tools.Tool, input string) (string, error) {
	t.Helper()
	return tool.Run(context.Background(), tools.Call{ID: "c1", Input: json.RawMessage(input)})
}

func TestSkillToolReturnsBody(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deploy.md", skillText("deploy", "Use when deploying.", "1. build\n2. ship"))
	cat, _ := Load(Sources{ProjectDir: dir, NoBundled: true})
	tool := Tool(func() *Catalogue { return cat })

	for _, in := range []string{`{"name":"deploy"}`, `{"name":"  Deploy "}`} {
		out, err := runSkill(t, tool, in)
		if err != nil {
			t.Fatal(err)
		}
		want := "Skill \"deploy\" (project). Follow these instructions for this task.\n\n1. build\n2. ship"
		if out != want {
			t.Errorf("%s: output =\n%q\nwant\n%q", in, out, want)
		}
	}
}

func TestSkillToolBundledOrigin(t *testing.T) {
	cat, _ := Load(Sources{})
	out, err := runSkill(t, Tool(func() *Catalogue { return cat }), `{"name":"plan"}`)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := cat.Get("plan")
	if out != "Skill \"plan\" (bundled). Follow these instructions for this task.\n\n"+plan.Body {
		t.Errorf("unexpected output start: %q", out[:80])
	}
}

func TestSkillToolUnknownNameListsClosest(t *testing.T) {
	cat, _ := Load(Sources{})
	tool := Tool(func() *Catalogue { return cat })
	_, err := runSkill(t, tool, `{"name":"dbug"}`)
	if err == nil {
		t.Fatal("unknown skill must be an error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, `unknown skill "dbug"; closest: debug`) {
		t.Errorf("error = %q", msg)
	}
	if n := strings.Count(msg, ", ") + 1; n != 5 {
		t.Errorf("want 5 suggestions, got %d in %q", n, msg)
	}

	for _, in := range []string{`{"name":""}`, `{}`, `{"name":"` + strings.Repeat("a", 200) + `"}`} {
		_, err = runSkill(t, tool, in)
		if err == nil || !strings.Contains(err.Error(), "available: accessibility, api-design") {
			t.Errorf("%s: %v", in, err)
		}
	}
	_, err = runSkill(t, tool, `{"name":`)
	var inputErr *tools.InputError
	if !errors.As(err, &inputErr) {
		t.Errorf("malformed input should be an InputError, got %v", err)
	}
}

func TestSkillToolNoSkills(t *testing.T) {
	for _, cat := range []*Catalogue{nil, {}} {
		_, err := runSkill(t, Tool(func() *Catalogue { return cat }), `{"name":"plan"}`)
		if err == nil || !strings.Contains(err.Error(), "no skills are loaded") {
			t.Errorf("err = %v", err)
		}
	}
}

// The tool asks the live func on every call, so a catalogue swapped in
// between calls (a registry install) is used at once.
func TestSkillToolUsesLiveCatalogue(t *testing.T) {
	before, after := t.TempDir(), t.TempDir()
	writeFile(t, after, "fresh.md", skillText("fresh", "Use when new.", "fresh body"))
	first, _ := Load(Sources{UserDir: before, NoBundled: true})
	second, _ := Load(Sources{UserDir: after, NoBundled: true})

	var current atomic.Pointer[Catalogue]
	current.Store(first)
	calls := 0
	tool := Tool(func() *Catalogue { calls++; return current.Load() })

	if _, err := runSkill(t, tool, `{"name":"fresh"}`); err == nil {
		t.Fatal("fresh is not installed yet")
	}
	current.Store(second)
	out, err := runSkill(t, tool, `{"name":"fresh"}`)
	if err != nil || !strings.HasSuffix(out, "fresh body") {
		t.Fatalf("after swap: %q, %v", out, err)
	}
	current.Store(first)
	if _, err := runSkill(t, tool, `{"name":"fresh"}`); err == nil {
		t.Fatal("removed skill still served")
	}
	if calls != 3 {
		t.Errorf("live func called %d times, want once per call", calls)
	}
}

func TestSkillToolSpecAndMeta(t *testing.T) {
	tool := Tool(func() *Catalogue { return nil })
	spec := tool.Spec()
	if spec.Name != "skill" {
		t.Errorf("name = %q", spec.Name)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(spec.Schema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if schema.Type != "object" || schema.Properties["name"] == nil || len(schema.Required) != 1 || schema.Required[0] != "name" {
		t.Errorf("schema = %s", spec.Schema)
	}
	m := tool.Meta()
	if m.Set != tools.SetNone || m.Mutating || m.Guidance == "" || m.Writes != nil || m.Commands != nil {
		t.Errorf("meta = %+v", m)
	}
	subjects := map[string][]string{
		`{"name":"plan"}`:    {"plan"},
		`{"name":" Plan "}`:  {"plan"},
		`{"name":""}`:        nil,
		`{}`:                 nil,
		`not json`:           nil,
		`{"name":["a","b"]}`: nil,
	}
	for in, want := range subjects {
		got := m.Subjects(json.RawMessage(in))
		if strings.Join(got, ",") != strings.Join(want, ",") || (want == nil) != (got == nil) {
			t.Errorf("Subjects(%s) = %v, want %v", in, got, want)
		}
	}
}
