package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseServersReadsEveryShape(t *testing.T) {
	raw := `{
		"fs": {"command": "npx", "args": ["-y", "server-fs", "."], "env": {"TOKEN": "${TOKEN}"}},
		"web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${KEY}"}},
		"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
		"inferred": {"url": "https://example.com/other", "oauth": {"clientId": "abc", "callbackPort": 8765}},
		"slow": {"type": "stdio", "command": "srv", "startTimeoutMs": 90000, "alwaysAllow": []}
	}`
	ds, warnings, err := ParseServers("/home/me/.mcp.json", "mcpServers", OriginProject, json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Def{}
	for _, d := range ds {
		got[d.Name] = d
		if d.Origin != OriginProject || d.Source != "/home/me/.mcp.json" || len(d.Digest) != 64 {
			t.Errorf("%s: origin %s, source %s, digest %q", d.Name, d.Origin, d.Source, d.Digest)
		}
	}
	if want := (Stdio{Command: "npx", Args: []string{"-y", "server-fs", "."}, Env: map[string]string{"TOKEN": "${TOKEN}"}}); !reflect.DeepEqual(got["fs"].Launch, want) {
		t.Errorf("fs = %#v", got["fs"].Launch)
	}
	if want := (HTTP{Endpoint{URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${KEY}"}}}); !reflect.DeepEqual(got["web"].Launch, want) {
		t.Errorf("web = %#v", got["web"].Launch)
	}
	if _, ok := got["old"].Launch.(SSE); !ok {
		t.Errorf("old = %#v", got["old"].Launch)
	}
	if h, ok := got["inferred"].Launch.(HTTP); !ok || h.OAuth == nil || h.OAuth.ClientID != "abc" || h.OAuth.CallbackPort != 8765 {
		t.Errorf("inferred = %#v", got["inferred"].Launch)
	}
	if got["slow"].StartTimeout != 90*time.Second {
		t.Errorf("slow start timeout = %s", got["slow"].StartTimeout)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `mcpServers.slow: unknown key "alwaysAllow" ignored`) {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestParseServersNamesTheFieldThatIsWrong(t *testing.T) {
	for raw, want := range map[string]string{
		`[]`:                                                    `f.json: field "mcpServers" should be an object of server name → definition, not an array`,
		`{"a": "npx"}`:                                          `f.json: field "mcpServers.a" should be an object`,
		`{"a": {}}`:                                             `f.json: field "mcpServers.a" needs command (a local server) or url (a remote one)`,
		`{"a": {"command": 3}}`:                                 `f.json: field "mcpServers.a.command" should be a string, not a number`,
		`{"a": {"command": "x", "args": "y"}}`:                  `f.json: field "mcpServers.a.args" should be a list of strings, not a string`,
		`{"a": {"command": "x", "url": "y"}}`:                   `f.json: field "mcpServers.a.url" does not apply to this kind of server`,
		`{"a": {"type": "ws", "url": "x"}}`:                     `f.json: field "mcpServers.a.type" is "ws"; use stdio, http or sse`,
		`{"a": {"type": "http", "url": "ftp://x"}}`:             `f.json: field "mcpServers.a.url" is "ftp://x"; it must be an http:// or https:// address`,
		`{"a b": {"command": "x"}}`:                             `f.json: mcpServers.a b: server name "a b" may hold only letters, digits, _ and -`,
		`{"a__b": {"command": "x"}}`:                            `may not contain "__"`,
		`{"a": {"command": "x", "startTimeoutMs": 5}}`:          `field "mcpServers.a.startTimeoutMs" must be between 100 and 600000`,
		`{"a": {"url": "https://x", "oauth": {"client": "y"}}}`: `field "mcpServers.a.oauth.client" is not an OAuth setting`,
		`{"a": {"command": "x"}, "a": {"command": "y"}}`:        `duplicate`,
	} {
		_, _, err := ParseServers("f.json", "mcpServers", OriginUser, json.RawMessage(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", raw, err, want)
		}
	}
}

// The digest is of the definition as written, whatever its layout: the
// same definition keeps its approval, any change needs a new one.
func TestDigestFollowsTheDefinitionNotItsLayout(t *testing.T) {
	digest := func(raw string) string {
		ds, _, err := ParseServers("f", "mcpServers", OriginProject, json.RawMessage(`{"s":`+raw+`}`))
		if err != nil {
			t.Fatal(err)
		}
		return ds[0].Digest
	}
	a := digest(`{"command":"x","args":["1"],"env":{"A":"${A}"}}`)
	if b := digest("{\n  \"env\": {\"A\": \"${A}\"},\n  \"args\": [\"1\"], \"command\": \"x\"\n}"); a != b {
		t.Error("reformatting the definition changed its digest")
	}
	for _, changed := range []string{
		`{"command":"x","args":["2"],"env":{"A":"${A}"}}`,
		`{"command":"x","args":["1"],"env":{"A":"${B}"}}`,
		`{"command":"y","args":["1"],"env":{"A":"${A}"}}`,
	} {
		if digest(changed) == a {
			t.Errorf("%s has the digest of the original", changed)
		}
	}
}

func TestExpandReplacesVariablesAndNamesAMissingOne(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "HOST": "example.com"}
	getenv := func(k string) string { return env[k] }
	d := Def{Name: "s", Launch: Stdio{Command: "${BIN:-npx}", Args: []string{"--host=${HOST}"}, Env: map[string]string{"T": "${TOKEN}"}}}
	got, _, err := Expand(d, getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Stdio{Command: "npx", Args: []string{"--host=example.com"}, Env: map[string]string{"T": "s3cret"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("expanded = %#v", got)
	}
	h := Def{Name: "h", Launch: HTTP{Endpoint{URL: "https://${HOST}/mcp", Headers: map[string]string{"Authorization": "Bearer ${MISSING}"}}}}
	_, _, err = Expand(h, getenv, nil)
	if err == nil || err.Error() != "server h: headers.Authorization refers to ${MISSING}, which is not set: set it, or write ${MISSING:-default}" {
		t.Errorf("missing variable: %v", err)
	}
	ds, _, _ := ParseServers("f", "mcpServers", OriginProject, json.RawMessage(`{"s":{"command":"x","env":{"A":"${TOKEN}","B":"${HOME:-/}"}}}`))
	if v := Variables(ds[0]); !reflect.DeepEqual(v, []string{"HOME", "TOKEN"}) {
		t.Errorf("variables = %v", v)
	}
}

func TestToolNameFitsProviders(t *testing.T) {
	if got := ToolName("fs", "read_file"); got != "mcp__fs__read_file" {
		t.Errorf("plain name = %s", got)
	}
	if got := ToolName("fs", "files.read/v2"); got != "mcp__fs__files_read_v2" {
		t.Errorf("cleaned name = %s", got)
	}
	long := ToolName("server", strings.Repeat("very_long_tool_name_", 5))
	if len(long) != 64 || !strings.HasPrefix(long, "mcp__server__very_long") {
		t.Errorf("long name = %s (%d)", long, len(long))
	}
	if other := ToolName("server", strings.Repeat("very_long_tool_name_", 5)+"x"); other == long {
		t.Error("two long names that differ only past the cut got the same name")
	}
}

func TestTrustRecordsApprovalsPerProject(t *testing.T) {
	dir := t.TempDir()
	tr := NewTrust(filepath.Join(dir, "mcp-trust.json"))
	digest := strings.Repeat("ab", 32)
	if _, ok, err := tr.Lookup("/p", "s"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	if err := tr.Approve("/p", "s", digest, time.Now()); err != nil {
		t.Fatal(err)
	}
	if a, ok, _ := tr.Lookup("/p", "s"); !ok || a.Digest != digest {
		t.Errorf("lookup after approve = %+v %v", a, ok)
	}
	if _, ok, _ := tr.Lookup("/other", "s"); ok {
		t.Error("an approval leaked to another project")
	}
	fi, err := os.Stat(tr.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode = %v, %v", fi.Mode(), err)
	}
	if had, err := tr.Revoke("/p", "s"); !had || err != nil {
		t.Errorf("revoke = %v, %v", had, err)
	}
	if _, ok, _ := tr.Lookup("/p", "s"); ok {
		t.Error("a revoked approval still counts")
	}
	if err := tr.Approve("relative", "s", digest, time.Now()); err == nil {
		t.Error("a relative project folder was accepted")
	}
	if err := os.WriteFile(tr.Path(), []byte(`{"version":1,"projects":{"/p":{"s":{"digest":"nope","approvedAt":"2026-01-01T00:00:00Z"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Lookup("/p", "s"); err == nil || !strings.Contains(err.Error(), "digest is not 64 lower-case hex digits") {
		t.Errorf("a corrupt approval: %v", err)
	}
	if err := os.Chmod(tr.Path(), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Lookup("/p", "s"); err == nil || !strings.Contains(err.Error(), "can be changed by other users") {
		t.Errorf("a world-writable store: %v", err)
	}
}
