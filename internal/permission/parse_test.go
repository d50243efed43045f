package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustParse(t testing.TB, src string) *Rules {
	t.Helper()
	r, err := Parse(json.RawMessage(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", src, err)
	}
	return r
}

func TestParseEmptyMeansDefaults(t *testing.T) {
	for _, src := range []string{"", "  ", "null", "{}"} {
		r, err := Parse(json.RawMessage(src))
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		if got := r.Check(read(".env"), nil).Decision; got != Deny {
			t.Errorf("Parse(%q): reading .env = %s, want the default deny", src, got)
		}
	}
}

func TestParseKeepsSourceOrder(t *testing.T) {
	// Same rules, opposite order: last match wins, so the outcome flips.
	// A map would lose the order and make one of these wrong.
	a := mustParse(t, `{"bash": {"rm *": "deny", "*": "allow"}}`)
	b := mustParse(t, `{"bash": {"*": "allow", "rm *": "deny"}}`)
	q := bash("rm x")
	if got := a.Check(q, nil); got.Decision != Allow {
		t.Errorf(`{"rm *":deny,"*":allow} on "rm x" = %s, want allow (last match wins)`, got.Decision)
	}
	if got := b.Check(q, nil); got.Decision != Deny {
		t.Errorf(`{"*":allow,"rm *":deny} on "rm x" = %s, want deny`, got.Decision)
	}
	var keys []string
	for _, e := range mustParse(t, `{"zeta": "ask", "alpha": "allow", "mcp__*": "deny"}`).Entries() {
		if e.Source == SourceConfig {
			keys = append(keys, e.Key)
		}
	}
	if strings.Join(keys, ",") != "zeta,alpha,mcp__*" {
		t.Errorf("config entries in order %v, want zeta, alpha, mcp__*", keys)
	}
}

// A decision that is not allow, ask or deny is an error naming where it
// is and what to write instead, and no rules come back: keeping the rest
// of a table could widen access (a misspelt deny after `"*": "allow"`
// would leave .env readable), and dropping it would hide the mistake.
func TestParseInvalidDecisionIsAnError(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		{
			name: "a typo in a single decision",
			src:  `{"write_file": "alow"}`,
			want: `"write_file": "alow" is not a decision; use "allow", "ask" or "deny"`,
		},
		{
			name: "a typo in a table",
			src:  `{"read_file": {"*": "allow", "*.env": "dney"}}`,
			want: `"read_file": "*.env": "dney" is not a decision; use "allow", "ask" or "deny"`,
		},
		{
			name: "decisions are case-sensitive",
			src:  `{"bash": {"*": "allow", "rm *": "Deny"}}`,
			want: `"bash": "rm *": "Deny" is not a decision; use "allow", "ask" or "deny"`,
		},
		{
			name: "the first bad decision is named, after good entries",
			src:  `{"bash": "ask", "read_file": {"*": "allow", "*.env": "dney", "*.pem": "nope"}, "grep": "nah"}`,
			want: `"read_file": "*.env": "dney" is not a decision; use "allow", "ask" or "deny"`,
		},
		{
			name: "an empty decision",
			src:  `{"mcp__*": ""}`,
			want: `"mcp__*": "" is not a decision; use "allow", "ask" or "deny"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(json.RawMessage(tt.src))
			if err == nil {
				t.Fatalf("Parse(%s): no error", tt.src)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
			if r != nil {
				t.Error("rules came back with the error")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`[]`, `expected an object mapping tool names to "allow", "ask", "deny" or a table of patterns, got an array`},
		{`"allow"`, `got the string "allow"`},
		{`{"bash": 1}`, `"bash": expected "allow", "ask", "deny" or an object`},
		{`{"bash": ["allow"]}`, `"bash": expected "allow", "ask", "deny" or an object of {"<pattern>": "<decision>"}, got an array`},
		{`{"bash": null}`, `"bash": expected "allow", "ask", "deny" or an object of {"<pattern>": "<decision>"}, got null`},
		{`{"bash": {"git *": true}}`, `"bash": "git *": expected "allow", "ask" or "deny", got a boolean`},
		{`{"bash": {"git *": {"x": "allow"}}}`, `"bash": "git *": expected "allow", "ask" or "deny", got an object`},
		{`{"bash": "ask", "bash": "allow"}`, `"bash" appears twice; merge its rules into one entry`},
		{`{"": "allow"}`, `a key is empty; use a tool name such as "bash"`},
		{`{"bash": "ask"`, `the JSON ends before its object is closed`},
		{`{"bash": {"git *": "allow"`, `"bash": the JSON ends before its object is closed`},
		{`{"bash": {"git *"`, `"bash": "git *": the JSON ends before its object is closed`},
		{`{"bash": "ask"} {}`, `unexpected data after the object`},
		{`{"bash" "ask"}`, `"bash": invalid character '"' after object key`},
	}
	for _, tt := range tests {
		r, err := Parse(json.RawMessage(tt.src))
		if err == nil {
			t.Errorf("Parse(%s): no error, want one containing %q", tt.src, tt.want)
			continue
		}
		if r != nil {
			t.Errorf("Parse(%s): rules came back with the error", tt.src)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s) = %q, want it to contain %q", tt.src, err, tt.want)
		}
		// The caller names the file and the field; repeating it reads
		// "permission: permission: …".
		if strings.HasPrefix(err.Error(), "permission") {
			t.Errorf("Parse(%s) = %q, which names the field itself", tt.src, err)
		}
	}
}

func TestParseDuplicatePatternsKeepOrder(t *testing.T) {
	// JSON allows a repeated key; in a table both rules stay, in order.
	r := mustParse(t, `{"bash": {"ls *": "allow", "ls *": "deny"}}`)
	if got := r.Check(Query{Tool: "bash", IsShell: true, Subjects: []string{"ls -la"}}, nil).Decision; got != Deny {
		t.Errorf("decision = %s, want deny from the later duplicate", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"bash": {"*": "ask", "git *": "allow", "rm *": "deny"}, "mcp__*": "deny"}`)
	f.Add(`{"read_file": {"*": "allow", "*.env": "dney"}}`)
	f.Add(`{"read_file": {"*": "allow", "*.env": "deny"}, "bash": "ask"}`)
	f.Add(`{"a": "allow", "a": "ask"}`)
	f.Add(`{"x": {"y": [1, {"z": null}]}}`)
	f.Add(`null`)
	f.Add(`{"web_*": "allow", "w?b_fetch": "deny"}`)
	f.Fuzz(func(t *testing.T, src string) {
		r, err := Parse(json.RawMessage(src))
		if err != nil {
			if r != nil {
				t.Fatal("rules returned with an error")
			}
			if strings.HasPrefix(err.Error(), "permission") {
				t.Fatalf("error %q names the field itself", err)
			}
			return
		}
		// Whatever parsed must be usable: checks must not panic and must
		// return a real decision.
		for _, q := range []Query{
			bash("git status && rm -rf x"),
			read("config/.env"),
			{Tool: "mcp__fs_read"},
			{Tool: "web_fetch", Subjects: []string{"https://example.com"}, Default: Ask},
			{Tool: "todo_write", Default: Allow},
		} {
			res := r.Check(q, nil)
			if _, ok := ParseDecision(string(res.Decision)); !ok {
				t.Fatalf("Check(%+v) = %q, not a decision", q, res.Decision)
			}
			if res.Decision == Deny && res.Reason == "" {
				t.Fatalf("Check(%+v) denied without a reason", q)
			}
			_ = res.Describe()
		}
		_ = r.Entries()
	})
}

func TestEntries(t *testing.T) {
	r := mustParse(t, `{"read_file": {"*": "allow"}, "mcp__*": "ask"}`)
	entries := r.Entries()
	// Only the config's: defaults depend on the tool, not on a list.
	if len(entries) != 2 {
		t.Fatalf("%d entries, want the 2 of the config: %+v", len(entries), entries)
	}
	if entries[0].Key != "read_file" || entries[0].Source != SourceConfig || len(entries[0].Rules) != 1 {
		t.Fatalf("first entry = %+v, want the config's read_file", entries[0])
	}
	if entries[1].Key != "mcp__*" || entries[1].Decision != Ask || entries[1].Source != SourceConfig {
		t.Fatalf("second entry = %+v, want mcp__* = ask", entries[1])
	}
	if got := Default().Entries(); len(got) != 0 {
		t.Fatalf("the defaults list entries: %+v", got)
	}
	// Entries hands out copies: changing one must not change the rules.
	entries[0].Rules[0].Decision = Deny
	if got := r.Check(read("a.go"), nil).Decision; got != Allow {
		t.Fatalf("editing Entries changed the rules: %s", got)
	}
}

func TestEmptyTableAsks(t *testing.T) {
	r := mustParse(t, `{"read_file": {}}`)
	if got := r.Check(read("a.go"), nil).Decision; got != Ask {
		t.Fatalf("an empty table gave %s, want ask", got)
	}
	if e := r.Entries()[0]; !e.IsTable() || e.Decision != "" {
		t.Fatalf("the empty table is listed as %+v", e)
	}
}
