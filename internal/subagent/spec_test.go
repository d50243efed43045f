package subagent

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// TestSchemas holds the task tool's schema, in each offer it is made in,
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): the kinds a session may ask for differ between them. `go test -v
// -run Schemas` prints the bytes per request.
func TestSchemas(t *testing.T) {
	cases := []struct {
		name       string
		spec       func() (string, string, json.RawMessage)
		withWorker bool
	}{
		{"with worker", func() (string, string, json.RawMessage) {
			s := New(Config{ApprovalChannel: true}).SpecFor(agent.DefaultVariant())
			return s.Name, s.Description, s.Schema
		}, true},
		{"read-only variant", func() (string, string, json.RawMessage) {
			s := New(Config{ApprovalChannel: true}).SpecFor(agent.Variant{Name: "plan", ReadOnly: true})
			return s.Name, s.Description, s.Schema
		}, false},
		{"no approval channel", func() (string, string, json.RawMessage) {
			i := New(Config{}).Info()
			return i.Name, i.Description, i.Schema
		}, false},
	}
	schemas := map[string]json.RawMessage{}
	for _, c := range cases {
		name, desc, schema := c.spec()
		schemas["task ("+c.name+")"] = schema
		if name != "task" || strings.Contains(desc, "- worker:") != c.withWorker {
			t.Errorf("%s: %s %q", c.name, name, desc)
		}
		t.Logf("task (%s) %d bytes", c.name, len(name)+len(desc)+len(schema))
	}
	tooltest.GoldenSchemas(t, schemas)
}

func TestInfo(t *testing.T) {
	for _, cfg := range []Config{{}, {ApprovalChannel: true}} {
		i := New(cfg).Info()
		if i.Name != "task" || i.Set != tool.SetNone || i.Effect != tool.Delegates || i.Kind != protocol.KindOther ||
			i.Subject != tool.TextSubject || i.Interactive {
			t.Fatalf("info = %+v", i)
		}
		if i.Guidance != "hand a broad search or an independent review to a subagent with its own context and act on its report; put independent briefs in one batch (tasks), which runs in parallel." ||
			!strings.HasPrefix(i.Description, "Hand a self-contained job to a subagent:") {
			t.Fatalf("description %q guidance %q", i.Description, i.Guidance)
		}
		if _, err := tool.NewRegistry(New(cfg)); err != nil {
			t.Fatal(err)
		}
	}
}

// The plan's subjects are the briefs' descriptions as the subagents get
// them, and its title says the kind and the jobs in one line.
func TestPlan(t *testing.T) {
	task := New(Config{ApprovalChannel: true})
	cases := map[string]tool.Plan{
		`{"description":" find the loader ","prompt":"Where?"}`: {Subjects: []string{"find the loader"}, Title: "explore: find the loader"},
		`{"tasks":[{"description":"one","prompt":"x"},{"description":"two\nlines","prompt":"y"}],"kind":"review"}`: {
			Subjects: []string{"one", "two\nlines"}, Title: "review: 2 tasks: one; two lines"},
		`{"description":"tidy","prompt":"p","kind":"worker"}`: {Subjects: []string{"tidy"}, Title: "worker: tidy"},
		`{"description":"` + strings.Repeat("d", 90) + `","prompt":"p"}`: {
			Subjects: []string{strings.Repeat("d", 90)}, Title: "explore: " + strings.Repeat("d", 71) + "…"},
	}
	for in, want := range cases {
		p, err := task.Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := p.Plan(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan %+v, want %+v", in, got, want)
		}
		if _, ok := p.(agent.Delegator); !ok {
			t.Fatalf("%s: a prepared task call does not delegate", in)
		}
	}
}

// Outside an agent turn a task cannot run: it has no parent to lend it a
// provider and a gate.
func TestRunOutsideATurnIsRefused(t *testing.T) {
	_, err := tooltest.Invoke(t.Context(), New(Config{}), json.RawMessage(`{"description":"a","prompt":"b"}`), tool.Runtime{})
	if err == nil || err.Error() != "the task tool runs only inside an agent turn" {
		t.Fatalf("err = %v", err)
	}
}

// fake is a tool that is only what its Info says.
func fake(name string, set tool.Set, effect tool.Effect, interactive bool) tool.Tool {
	return tool.New(tool.Def[struct{}]{
		Info: tool.Info{Name: name, Set: set, Effect: effect, Interactive: interactive, Kind: protocol.KindOther},
		Run: func(context.Context, tool.Runtime, *struct{}) (tool.Result, error) {
			return tool.Text("ran"), nil
		},
	})
}

// A kind's tools are chosen by what the tools are, never by their names: a
// tool called read_file that runs programs is no explore tool, and one
// nobody has heard of that only reads is. The parent's filter is only ever
// narrowed: its sets, its read-only flag and its own selection still hold.
func TestKindsChooseToolsByWhatTheyAre(t *testing.T) {
	reg, err := tool.NewRegistry(
		fake("read_file", tool.SetCore, tool.Runs, false),
		fake("peek", tool.SetCore, tool.Reads, false),
		fake("nav_peek", tool.SetNav, tool.Reads, false),
		fake("session_peek", tool.SetNone, tool.Reads, false),
		fake("edit", tool.SetCore, tool.Writes, false),
		fake("notes", tool.SetNone, tool.KeepsState, false),
		fake("fetch", tool.SetNet, tool.Fetches, false),
		fake("question", tool.SetNone, tool.Reads, true),
		fake("delegate", tool.SetNone, tool.Delegates, false),
	)
	if err != nil {
		t.Fatal(err)
	}
	everything := tool.Filter{Sets: tool.AllSets()}
	names := func(f tool.Filter) []string {
		var out []string
		for _, tl := range reg.Active(f) {
			out = append(out, tl.Info().Name)
		}
		return out
	}
	cases := []struct {
		name   string
		kind   Kind
		parent tool.Filter
		want   []string
	}{
		{"explore", Explore, everything, []string{"nav_peek", "peek", "session_peek"}},
		{"review", Review, everything, []string{"nav_peek", "peek", "session_peek"}},
		{"worker", Worker, everything, []string{"edit", "nav_peek", "peek", "read_file", "session_peek"}},
		{"parent sets", Explore, tool.Filter{Sets: []tool.Set{tool.SetCore}}, []string{"peek", "session_peek"}},
		{"read-only parent", Worker, tool.Filter{Sets: tool.AllSets(), ReadOnly: true}, []string{"nav_peek", "peek", "session_peek"}},
		{"parent's selection", Worker, tool.Filter{Sets: tool.AllSets(), Only: func(i *tool.Info) bool { return i.Set != tool.SetNav }},
			[]string{"edit", "peek", "read_file", "session_peek"}},
	}
	for _, c := range cases {
		if got := names(c.kind.filter(c.parent)); !slices.Equal(got, c.want) {
			t.Errorf("%s: tools %v, want %v", c.name, got, c.want)
		}
	}
}
