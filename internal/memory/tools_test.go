package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools"
)

func run(t *testing.T, s *Store, name, input string) (string, error) {
	t.Helper()
	for _, tool := range s.Tools() {
		if tool.Spec().Name == name {
			return tool.Run(context.Background(), tools.Call{ID: "c", Input: json.RawMessage(input)})
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func TestToolSpecsAndMeta(t *testing.T) {
	s := open(t, memPath(t), newClock())
	want := map[string]bool{"remember": false, "recall": false, "forget": true}
	for _, tool := range s.Tools() {
		name := tool.Spec().Name
		mutating, ok := want[name]
		if !ok {
			t.Fatalf("unexpected tool %s", name)
		}
		m := tool.Meta()
		if m.Set != tools.SetNone || m.Mutating != mutating || m.Guidance == "" {
			t.Errorf("%s meta = %+v", name, m)
		}
		var schema map[string]any
		if err := json.Unmarshal(tool.Spec().Schema, &schema); err != nil {
			t.Errorf("%s schema: %v", name, err)
		}
	}
}

func TestToolsRoundTrip(t *testing.T) {
	s := open(t, memPath(t), newClock())
	out, err := run(t, s, "remember", `{"kind":"command","text":"lint with golangci-lint run"}`)
	if err != nil || out != "Remembered as command (1 stored): lint with golangci-lint run" {
		t.Fatalf("remember = %q, %v", out, err)
	}
	out, _ = run(t, s, "remember", `{"kind":"fact","text":"Lint with golangci-lint run."}`)
	if out != "Already recorded: lint with golangci-lint run" {
		t.Fatalf("duplicate = %q", out)
	}
	if _, err := run(t, s, "remember", `{"kind":"opinion","text":"x"}`); err == nil {
		t.Fatal("bad kind accepted")
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
	if _, err := run(t, s, "remember", `{"kind":`); err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Fatalf("bad JSON: %v", err)
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
