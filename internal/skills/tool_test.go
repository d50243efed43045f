package skills

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

func runSkill(t *testing.T, tl tool.Tool, input string) (string, error) {
	t.Helper()
	res, err := tooltest.Invoke(t.Context(), tl, json.RawMessage(input), tool.Runtime{CallID: "c1"})
	return res.Output, err
}

func TestSkillToolReturnsBody(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deploy.md", skillText("deploy", "Use when deploying.", "1. build\n2. ship"))
	cat, _ := Load(Sources{ProjectDir: dir, NoBundled: true})
	tl := Tool(func() *Catalogue { return cat })

	for _, in := range []string{`{"name":"deploy"}`, `{"name":"  Deploy "}`} {
		out, err := runSkill(t, tl, in)
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
	tl := Tool(func() *Catalogue { return cat })
	_, err := runSkill(t, tl, `{"name":"dbug"}`)
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

	for _, in := range []string{`{"name":""}`, `{"name":"  "}`, `{"name":"` + strings.Repeat("a", 200) + `"}`} {
		_, err = runSkill(t, tl, in)
		if err == nil || !strings.Contains(err.Error(), "available: accessibility, api-design") {
			t.Errorf("%s: %v", in, err)
		}
	}
	// Input that does not fit the schema never reaches the catalogue.
	for in, want := range map[string]string{
		`{"name":`:                   "not one JSON object",
		`{}`:                         `missing properties: ["name"]`,
		`{"name":["a","b"]}`:         "name",
		`{"name":"a","x":1}`:         `unexpected additional properties ["x"]`,
		`{"skill":"plan"}`:           `"skill"`,
		`{"name":"plan"} {}`:         "not one JSON object",
		`{"name":7}`:                 "name",
		`["name","plan"]`:            "must be a JSON object",
		`{"name":"a","name":"plan"}`: "duplicate key",
	} {
		_, err = runSkill(t, tl, in)
		var inputErr *tool.InputError
		if !errors.As(err, &inputErr) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want an InputError saying %q", in, err, want)
		}
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
	tl := Tool(func() *Catalogue { calls++; return current.Load() })

	if _, err := runSkill(t, tl, `{"name":"fresh"}`); err == nil {
		t.Fatal("fresh is not installed yet")
	}
	current.Store(second)
	out, err := runSkill(t, tl, `{"name":"fresh"}`)
	if err != nil || !strings.HasSuffix(out, "fresh body") {
		t.Fatalf("after swap: %q, %v", out, err)
	}
	current.Store(first)
	if _, err := runSkill(t, tl, `{"name":"fresh"}`); err == nil {
		t.Fatal("removed skill still served")
	}
	if calls != 3 {
		t.Errorf("live func called %d times, want once per call", calls)
	}
}

// TestSchemas holds the skill tool's schema to
// testdata/schemas.golden.json (rewrite it with -update and review the
// diff).
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, []tool.Tool{Tool(func() *Catalogue { return nil })}, 0)
}

func TestSkillToolInfo(t *testing.T) {
	i := Tool(func() *Catalogue { return nil }).Info()
	if i.Name != "skill" || i.Set != tool.SetNone || i.Effect != tool.Reads || i.Kind != protocol.KindRead ||
		i.Subject != tool.TextSubject || i.Interactive {
		t.Errorf("info = %+v", i)
	}
	if i.Description != "Load a skill's instructions by name. The system prompt lists the skills with a line on when each applies; load a matching one before you start the work and follow it as if the user had written it." ||
		i.Guidance != "skill: load the instructions of a listed skill before starting work its description matches." {
		t.Errorf("description %q guidance %q", i.Description, i.Guidance)
	}
}

// The plan's subject is the name asked for, normalised as the call will
// look it up, so a permission rule can match one skill.
func TestSkillToolPlan(t *testing.T) {
	calls := 0
	tl := Tool(func() *Catalogue { calls++; return nil })
	plans := map[string]tool.Plan{
		`{"name":"plan"}`:   {Subjects: []string{"plan"}, Title: "plan"},
		`{"name":" Plan "}`: {Subjects: []string{"plan"}, Title: "plan"},
		`{"name":"a\nb"}`:   {Subjects: []string{"a\nb"}, Title: "a b"},
		`{"name":""}`:       {},
		`{"name":"  "}`:     {},
		`{"name":"` + strings.Repeat("a", 70) + `"}`: {Subjects: []string{strings.Repeat("a", 70)}, Title: strings.Repeat("a", 64) + "…"},
	}
	for in, want := range plans {
		p, err := tl.Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := p.Plan(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan %+v, want %+v", in, got, want)
		}
	}
	if calls != 0 {
		t.Fatal("preparing a call looked at the catalogue")
	}
}
