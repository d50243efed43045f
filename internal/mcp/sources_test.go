package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollectOrdersSourcesAndKeepsABrokenProjectFileOut(t *testing.T) {
	dir := t.TempDir()
	flagFile := filepath.Join(dir, "extra.json")
	project := filepath.Join(dir, ".mcp.json")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(flagFile, `{"mcpServers":{"a":{"command":"from-flag"}}}`)
	write(project, `{"mcpServers":{"a":{"command":"from-project"},"b":{"command":"b"}},"other":1}`)
	ds, warns, err := Collect(Sources{
		Files: []string{flagFile}, User: json.RawMessage(`{"a":{"command":"from-user"},"c":{"url":"https://x"}}`), UserFile: "config.json",
		ProjectFile: project,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Def{}
	for _, d := range ds {
		got[d.Name] = d
	}
	if len(ds) != 3 || got["a"].Origin != OriginFlag || got["b"].Origin != OriginProject || got["c"].Origin != OriginUser {
		t.Errorf("defs = %+v", ds)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{`unknown key "other" ignored`, "MCP server a from config.json is left out: " + flagFile, "MCP server a from " + project + " is left out"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}

	write(project, `{"mcpServers":{"b":{"command":3}}}`)
	ds, warns, err = Collect(Sources{ProjectFile: project})
	if err != nil || len(ds) != 0 || len(warns) != 1 || !strings.Contains(warns[0], `"mcpServers.b.command" should be a string`) {
		t.Errorf("a broken project file: %v %v %q", ds, err, warns)
	}
	if _, _, err := Collect(Sources{Files: []string{filepath.Join(dir, "missing.json")}}); err == nil || !strings.HasPrefix(err.Error(), "--mcp-config: ") {
		t.Errorf("a missing --mcp-config file: %v", err)
	}
	if _, _, err := Collect(Sources{User: json.RawMessage(`{"x y":{}}`), UserFile: "config.json"}); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a bad user config: %v", err)
	}
}

func TestSetAndRemoveServerKeepTheRestOfTheFile(t *testing.T) {
	orig := []byte("{\n  \"provider\": \"openai\",\n  \"mcpServers\": {\"old\": {\"command\": \"x\"}},\n  \"model\": \"m\"\n}\n")
	out, err := SetServer("c.json", orig, "new", json.RawMessage(`{"url":"https://example.com/mcp"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "provider": "openai",
  "mcpServers": {
    "old": {
      "command": "x"
    },
    "new": {
      "url": "https://example.com/mcp"
    }
  },
  "model": "m"
}
`
	if string(out) != want {
		t.Errorf("after add:\n%s", out)
	}
	out, had, err := RemoveServer("c.json", out, "old")
	if err != nil || !had || strings.Contains(string(out), "old") || !strings.Contains(string(out), `"new"`) {
		t.Errorf("after remove (%v, %v):\n%s", had, err, out)
	}
	if _, had, _ := RemoveServer("c.json", out, "absent"); had {
		t.Error("removing an absent server reported one")
	}
	if out, err := SetServer("c.json", nil, "first", json.RawMessage(`{"command":"y"}`)); err != nil || !strings.Contains(string(out), `"first"`) {
		t.Errorf("into an empty file: %s, %v", out, err)
	}
	if _, err := SetServer("c.json", []byte(`[1]`), "x", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "c.json: it is not a JSON object") {
		t.Errorf("into a broken file: %v", err)
	}
}
