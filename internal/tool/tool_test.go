package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

type readIn struct {
	Path   string `json:"path" jsonschema:"File path"`
	Offset *int   `json:"offset,omitempty" jsonschema:"First line"`
	Mode   string `json:"mode,omitempty"`
}

func readTool() tool.Tool {
	return tool.New(tool.Def[readIn]{
		Info: tool.Info{Name: "demo_read", Description: "d", Set: tool.SetCore, Effect: tool.Reads, Subject: tool.PathSubject},
		Shape: func(s *jsonschema.Schema) {
			tool.Min(s, "offset", 1)
			tool.Enum(s, "mode", "text", "raw")
		},
		Check: func(in *readIn) error {
			if in.Path == "" {
				return tool.Failf("path is empty")
			}
			return nil
		},
		Plan: func(in *readIn) tool.Plan { return tool.Plan{Subjects: []string{in.Path}, Title: "read " + in.Path} },
		Run: func(_ context.Context, _ tool.Runtime, in *readIn) (tool.Result, error) {
			off := 0
			if in.Offset != nil {
				off = *in.Offset
			}
			b, _ := json.Marshal(map[string]any{"path": in.Path, "offset": off, "mode": in.Mode})
			return tool.Text(string(b)), nil
		},
	})
}

func TestSchemaIsDerivedFromTheInputType(t *testing.T) {
	got := string(readTool().Info().Schema)
	// Members keep the order of the struct's fields, so the bytes are stable.
	want := `{"type":"object","properties":{"path":{"type":"string","description":"File path"},"offset":{"type":"integer","description":"First line","minimum":1},"mode":{"type":"string","enum":["text","raw"]}},"required":["path"],"additionalProperties":false}`
	if got != want {
		t.Fatalf("schema\n got %s\nwant %s", got, want)
	}
}

func TestPrepareDecodesStrictly(t *testing.T) {
	tl := readTool()
	for input, want := range map[string]string{
		`{"offset":2}`:                      `missing properties: ["path"]`,
		`{"path":"a","offset":"2"}`:         `offset`,
		`{"path":"a","ofset":2}`:            `ofset`,
		`{"Path":"a"}`:                      `Path`,
		`{"path":"a","path":"../../etc/x"}`: `duplicate key`,
		`{"path":"a"} {"path":"b"}`:         `not one JSON object`,
		`["a"]`:                             `must be a JSON object`,
		`{"path":"a","offset":0}`:           `at least 1`,
		`{"path":"a","mode":"fast"}`:        `mode`,
		`{"path":""}`:                       `path is empty`,
		`not json`:                          `not one JSON object`,
	} {
		_, err := tl.Prepare(json.RawMessage(input))
		var ie *tool.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want an InputError saying %q", input, err, want)
		}
	}
}

func TestNullMembersCountAsAbsent(t *testing.T) {
	res, err := tooltest.Invoke(t.Context(), readTool(), json.RawMessage(`{"path":"a","offset":null,"mode":null}`), tool.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != `{"mode":"","offset":0,"path":"a"}` {
		t.Fatalf("output = %s", res.Output)
	}
}

func TestPlanAndInputComeFromTheOneDecode(t *testing.T) {
	in := json.RawMessage(`{"path":"x.go","offset":3}`)
	p, err := readTool().Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Plan(); got.Title != "read x.go" || len(got.Subjects) != 1 || got.Subjects[0] != "x.go" {
		t.Fatalf("plan = %+v", got)
	}
	if string(p.Input()) != string(in) {
		t.Fatalf("input = %s", p.Input())
	}
	if _, ok := p.(tool.Previewer); ok {
		t.Fatal("a tool without Preview must not offer one")
	}
}

// A call's plan is made once, however often the gate, the turn and the
// events ask for it: bash's parses the line.
func TestAPlanIsMadeOncePerCall(t *testing.T) {
	made := 0
	tl := tool.New(tool.Def[readIn]{
		Info: tool.Info{Name: "counted"},
		Plan: func(in *readIn) tool.Plan { made++; return tool.Plan{Title: in.Path} },
		Run:  func(context.Context, tool.Runtime, *readIn) (tool.Result, error) { return tool.Result{}, nil },
	})
	p, err := tl.Prepare(json.RawMessage(`{"path":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := p.Plan(); got.Title != "x" {
			t.Fatalf("plan = %+v", got)
		}
	}
	if made != 1 {
		t.Errorf("the plan was made %d times", made)
	}
}

func TestPreviewIsOfferedWhenDefined(t *testing.T) {
	tl := tool.New(tool.Def[readIn]{
		Info: tool.Info{Name: "demo_write", Effect: tool.Writes},
		Preview: func(_ context.Context, in *readIn) (*protocol.Diff, error) {
			return &protocol.Diff{Path: in.Path, Unified: "+x"}, nil
		},
		Run: func(context.Context, tool.Runtime, *readIn) (tool.Result, error) { return tool.Text("ok"), nil },
	})
	p, err := tl.Prepare(json.RawMessage(`{"path":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	pv, ok := p.(tool.Previewer)
	if !ok {
		t.Fatal("no preview")
	}
	d, err := pv.Preview(t.Context())
	if err != nil || d.Path != "a" {
		t.Fatalf("preview = %+v, %v", d, err)
	}
}

func TestFilterReadsWhatToolsAre(t *testing.T) {
	mk := func(name string, set tool.Set, e tool.Effect, interactive bool) tool.Tool {
		return tool.New(tool.Def[readIn]{Info: tool.Info{Name: name, Set: set, Effect: e, Interactive: interactive},
			Run: func(context.Context, tool.Runtime, *readIn) (tool.Result, error) { return tool.Result{}, nil }})
	}
	reg, err := tool.NewRegistry(
		mk("r", tool.SetCore, tool.Reads, false),
		mk("w", tool.SetCore, tool.Writes, false),
		mk("x", tool.SetCore, tool.Runs, false),
		mk("n", tool.SetNet, tool.Fetches, false),
		mk("q", tool.SetNone, tool.Reads, true),
		mk("d", tool.SetNone, tool.Delegates, false),
	)
	if err != nil {
		t.Fatal(err)
	}
	names := func(f tool.Filter) string {
		var out []string
		for _, tl := range reg.Active(f) {
			out = append(out, tl.Info().Name)
		}
		return strings.Join(out, ",")
	}
	core := []tool.Set{tool.SetCore}
	for _, c := range []struct {
		f    tool.Filter
		want string
	}{
		{tool.Filter{Sets: core}, "d,q,r,w,x"},
		{tool.Filter{Sets: core, ReadOnly: true}, "d,q,r"},
		{tool.Filter{Sets: core, Unattended: true, NoDelegation: true}, "r,w,x"},
		{tool.Filter{Sets: tool.AllSets(), Only: func(i *tool.Info) bool { return i.Effect == tool.Reads }}, "q,r"},
	} {
		if got := names(c.f); got != c.want {
			t.Errorf("%+v: got %s, want %s", c.f, got, c.want)
		}
	}
	if _, err := tool.NewRegistry(mk("r", tool.SetCore, tool.Reads, false), mk("r", tool.SetCore, tool.Reads, false)); err == nil {
		t.Error("a duplicate name was accepted")
	}
}

func TestParseSetsRefusesUnknownNames(t *testing.T) {
	sets, err := tool.ParseSets([]string{"git", "git", "nav"})
	if err != nil || len(sets) != 3 {
		t.Fatalf("sets = %v, %v", sets, err)
	}
	if _, err := tool.ParseSets([]string{"git", "gti"}); err == nil || !strings.Contains(err.Error(), `"gti"`) || !strings.Contains(err.Error(), "edit-plus") {
		t.Fatalf("err = %v", err)
	}
}

// Naming the original's "extra" set brings its five git tools (git-extra)
// with it; the default sets do not.
func TestParseSetsExtraBringsGitExtra(t *testing.T) {
	sets, err := tool.ParseSets([]string{"extra"})
	if err != nil || !slices.Contains(sets, tool.SetGitExtra) || !slices.Contains(sets, tool.SetExtra) {
		t.Fatalf("sets = %v, %v", sets, err)
	}
	if slices.Contains(tool.DefaultSets(), tool.SetGitExtra) {
		t.Fatal("the default sets carry git-extra")
	}
}

func TestCap(t *testing.T) {
	long := strings.Repeat("é", tool.ResultCap+10)
	got := tool.Cap(long)
	if !strings.HasSuffix(got, "[truncated 10 chars]") {
		t.Fatalf("suffix: %q", got[len(got)-40:])
	}
	if tool.Cap("short") != "short" {
		t.Fatal("short text changed")
	}
}

func FuzzPrepare(f *testing.F) {
	f.Add(`{"path":"a","offset":3,"mode":"raw"}`)
	f.Add(`{"path":"a","path":"b"}`)
	tl := readTool()
	f.Fuzz(func(t *testing.T, input string) {
		p, err := tl.Prepare(json.RawMessage(input))
		if err != nil {
			var ie *tool.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%q: a bad input must be an InputError, got %T %v", input, err, err)
			}
			return
		}
		// What was accepted has a path, and the plan names it.
		if len(p.Plan().Subjects) != 1 || p.Plan().Subjects[0] == "" {
			t.Fatalf("%q: plan %+v", input, p.Plan())
		}
	})
}

func TestFileDiff(t *testing.T) {
	d := tool.FileDiff("a.txt", "one\ntwo\n", "one\n2\n")
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	if d.Unified != want || d.Before != "one\ntwo\n" || d.After != "one\n2\n" || d.Truncated {
		t.Fatalf("diff = %+v", d)
	}
	if created := tool.FileDiff("n.txt", "", "x\n"); !strings.HasPrefix(created.Unified, "--- /dev/null\n+++ b/n.txt\n") {
		t.Fatalf("new file: %q", created.Unified)
	}
	big := strings.Repeat("x\n", 200<<10)
	if d := tool.FileDiff("big", big, big+"y\n"); !d.Truncated || d.Before != "" || !strings.Contains(d.Unified, "+y") {
		t.Fatalf("big file: truncated=%v unified=%q", d.Truncated, d.Unified[:min(len(d.Unified), 80)])
	}
}

func TestBoundErrorsReadAsSentences(t *testing.T) {
	_, err := readTool().Prepare(json.RawMessage(`{"path":"a","offset":0}`))
	if err == nil || !strings.Contains(err.Error(), "offset must be at least 1; got 0") {
		t.Fatalf("err = %v", err)
	}
}

func TestAToolWithoutInputStillNamesItsProperties(t *testing.T) {
	type none struct{}
	tl := tool.New(tool.Def[none]{Info: tool.Info{Name: "status"},
		Run: func(context.Context, tool.Runtime, *none) (tool.Result, error) { return tool.Text("ok"), nil }})
	if got := string(tl.Info().Schema); got != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Fatalf("schema = %s", got)
	}
	for _, in := range []string{``, `null`, `{}`} {
		if _, err := tooltest.Invoke(t.Context(), tl, json.RawMessage(in), tool.Runtime{}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestReadOnlyWithholdsWhatDestroys(t *testing.T) {
	forget := tool.New(tool.Def[readIn]{Info: tool.Info{Name: "forget", Effect: tool.KeepsState, Destroys: true},
		Run: func(context.Context, tool.Runtime, *readIn) (tool.Result, error) { return tool.Result{}, nil }})
	if (tool.Filter{ReadOnly: true}).Offers(forget.Info()) {
		t.Fatal("a read-only agent was offered a tool that destroys")
	}
	if !(tool.Filter{}).Offers(forget.Info()) {
		t.Fatal("the default agent lost it")
	}
}

// A tool that is listed but never called does not keep the resolved form
// of its schema: only its first call derives it; the shaped schema
// checks calls as before, whichever of Info and Prepare comes first.
func TestOnlyACalledToolResolvesItsSchema(t *testing.T) {
	shaped := 0
	tl := tool.New(tool.Def[readIn]{
		Info:  tool.Info{Name: "demo_read"},
		Shape: func(s *jsonschema.Schema) { shaped++; tool.Min(s, "offset", 1) },
		Run:   func(context.Context, tool.Runtime, *readIn) (tool.Result, error) { return tool.Text("ok"), nil },
	})
	if _, err := tl.Prepare(json.RawMessage(`{"path":"a","offset":0}`)); err == nil || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("offset 0 before Info: %v", err)
	}
	_ = tl.Info()
	_ = tl.Info()
	if shaped != 2 {
		t.Fatalf("shaped %d times, want once for the wire and once for calls", shaped)
	}
	if _, err := tl.Prepare(json.RawMessage(`{"path":"a","offset":2}`)); err != nil || shaped != 2 {
		t.Fatalf("a second call: %v, shaped %d times", err, shaped)
	}
	if !strings.Contains(string(tl.Info().Schema), `"minimum":1`) {
		t.Fatalf("the wire schema lost its shape: %s", tl.Info().Schema)
	}
}
