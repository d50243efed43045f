package memory

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

func run(t *testing.T, s *Store, name, input string) (string, error) {
	t.Helper()
	res, err := tooltest.Invoke(t.Context(), tooltest.Named(t, s.Tools(), name), json.RawMessage(input), tool.Runtime{CallID: "c"})
	return res.Output, err
}

// TestSchemas holds the schemas the tools derive from their input types
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): types, descriptions, bounds, the required set and the refusal of
// unknown members.
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, open(t, "", newClock()).Tools(), 0)
}

func TestToolInfo(t *testing.T) {
	s := open(t, memPath(t), newClock())
	want := map[string]struct {
		effect   tool.Effect
		kind     protocol.ToolKind
		desc     string
		guidance string
	}{
		"remember": {tool.KeepsState, protocol.KindOther,
			"Save one durable lesson about this project for later sessions: a fact, a decision, a gotcha or a command. Not for the task at hand (use todo_write); duplicates are recognised.",
			"remember: save a durable fact, decision, gotcha or command about this project for later sessions."},
		"recall": {tool.Reads, protocol.KindSearch,
			"Search the project memory. Every word of the query must appear in a memory; the best 15 come back, most useful first.",
			"recall: search project memory when something may have been learned in an earlier session."},
		"forget": {tool.KeepsState, protocol.KindOther,
			"Remove every project memory whose text contains the given text (case-insensitive), when it turned out wrong or stale.",
			"forget: remove memories that turned out wrong or stale (every one containing the text)."},
	}
	tools := s.Tools()
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	if _, err := tool.NewRegistry(tools...); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		i := tl.Info()
		w, ok := want[i.Name]
		if !ok {
			t.Fatalf("unexpected tool %s", i.Name)
		}
		if i.Set != tool.SetNone || i.Effect != w.effect || i.Kind != w.kind || i.Subject != tool.NoSubject || i.Interactive {
			t.Errorf("%s: info %+v", i.Name, i)
		}
		if i.Description != w.desc || i.Guidance != w.guidance {
			t.Errorf("%s: description %q guidance %q", i.Name, i.Description, i.Guidance)
		}
	}
}

func TestPlans(t *testing.T) {
	s := open(t, memPath(t), newClock())
	cases := []struct{ tool, input, title string }{
		{"remember", `{"kind":"gotcha","text":"  the build\nneeds cgo "}`, "the build needs cgo"},
		{"remember", `{"kind":"fact","text":"` + strings.Repeat("x", 100) + `"}`, strings.Repeat("x", 80) + "…"},
		{"recall", `{"query":"test command"}`, "test command"},
		{"forget", `{"text":"golangci"}`, "golangci"},
	}
	for _, c := range cases {
		for _, tl := range s.Tools() {
			if tl.Info().Name != c.tool {
				continue
			}
			p, err := tl.Prepare(json.RawMessage(c.input))
			if err != nil {
				t.Fatalf("%s %s: %v", c.tool, c.input, err)
			}
			if got, want := p.Plan(), (tool.Plan{Title: c.title}); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: plan %+v, want %+v", c.tool, c.input, got, want)
			}
		}
	}
	if len(onDiskOrNil(t, s)) != 0 {
		t.Fatal("preparing calls changed the memory")
	}
}

func onDiskOrNil(t *testing.T, s *Store) []map[string]any {
	t.Helper()
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return onDisk(t, s.path)
}

func TestToolsRoundTrip(t *testing.T) {
	path := memPath(t)
	s := open(t, path, newClock())
	out, err := run(t, s, "remember", `{"kind":"command","text":"lint with golangci-lint run"}`)
	if err != nil || out != "Remembered as command (1 stored): lint with golangci-lint run" {
		t.Fatalf("remember = %q, %v", out, err)
	}
	if disk := onDisk(t, path); len(disk) != 1 || disk[0]["kind"] != "command" || disk[0]["text"] != "lint with golangci-lint run" {
		t.Fatalf("file = %v", disk)
	}
	out, _ = run(t, s, "remember", `{"kind":"fact","text":"Lint with golangci-lint run."}`)
	if out != "Already recorded: lint with golangci-lint run" {
		t.Fatalf("duplicate = %q", out)
	}
	out, _ = run(t, s, "recall", `{"query":"lint"}`)
	if out != "1 memory matches \"lint\":\n- (command) lint with golangci-lint run  [recalled 1x]" {
		t.Fatalf("recall = %q", out)
	}
	out, _ = run(t, s, "recall", `{"query":"deploy"}`)
	if out != `No memory matches "deploy".` {
		t.Fatalf("recall miss = %q", out)
	}
	out, _ = run(t, s, "forget", `{"text":"golangci"}`)
	if out != "Forgot 1 memory:\n- (command) lint with golangci-lint run" {
		t.Fatalf("forget = %q", out)
	}
	if disk := onDisk(t, path); len(disk) != 0 {
		t.Fatalf("file after forget = %v", disk)
	}
}

// Bad calls are refused before they run, each with a sentence naming what
// to send instead, and none of them touches the memory.
func TestBadCallsAreRefusedBeforeTheyRun(t *testing.T) {
	path := memPath(t)
	s := open(t, path, newClock())
	mustRemember(t, s, Fact, "the cache lives in .cache")
	cases := []struct{ tool, input, want string }{
		{"remember", `{"kind":"opinion","text":"x"}`, "kind: enum: opinion does not equal any of: [fact decision gotcha command]"},
		{"remember", `{"kind":"fact","text":"  \n "}`, "text is empty"},
		{"remember", `{"kind":"fact"}`, `missing properties: ["text"]`},
		{"remember", `{"kind":`, "invalid arguments"},
		{"recall", `{"query":" ... "}`, "query is empty"},
		{"forget", `{"text":" c "}`, "at least 3 characters"},
		{"forget", `{"text":"cache","all":true}`, `unexpected additional properties ["all"]`},
	}
	for _, c := range cases {
		_, err := run(t, s, c.tool, c.input)
		var ie *tool.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want an input error saying %q", c.tool, c.input, err, c.want)
		}
	}
	disk := onDisk(t, path)
	if len(disk) != 1 {
		t.Fatalf("refused calls changed the memory: %v", disk)
	}
	if hits, _ := disk[0]["hits"].(float64); hits != 0 {
		t.Fatalf("a refused recall counted as a hit: %v", disk)
	}
}

// FuzzDecode feeds arbitrary memory files to the loader: it must either
// accept them with valid kinds and non-empty text, or refuse them.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"id":"1","kind":"fact","text":"x","createdAt":"2026-01-01T00:00:00Z","hits":2}]`))
	f.Add([]byte(`[{"id":"1","kind":"FACT","text":"x","createdAt":"2026-01-01T00:00:00Z","lastHitAt":null}]`))
	f.Add([]byte(`{"entries":[]}`))
	f.Add([]byte(`[{"kind":"gotcha","text":"\u0000"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decode(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if _, err := ParseKind(string(e.Kind)); err != nil || strings.TrimSpace(e.Text) == "" || e.ID == "" || e.Hits < 0 {
				t.Fatalf("accepted a bad entry: %+v", e)
			}
		}
	})
}
