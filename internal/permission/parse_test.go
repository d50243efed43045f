package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustParse(t testing.TB, src string) *Rules {
	t.Helper()
	r, warnings, err := Parse(json.RawMessage(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", src, err)
	}
	if len(warnings) > 0 {
		t.Fatalf("Parse(%s) warned: %q", src, warnings)
	}
	return r
}

func TestParseEmptyMeansDefaults(t *testing.T) {
	for _, src := range []string{"", "  ", "null", "{}"} {
		r, warnings, err := Parse(json.RawMessage(src))
		if err != nil || len(warnings) > 0 {
			t.Fatalf("Parse(%q) = %v, %v", src, warnings, err)
		}
		if got := r.Check(Query{Tool: "read_file", Subjects: []string{".env"}}, nil).Decision; got != Deny {
			t.Errorf("Parse(%q): reading .env = %s, want the default deny", src, got)
		}
	}
}

func TestParseKeepsSourceOrder(t *testing.T) {
	// Same rules, opposite order: last match wins, so the outcome flips.
	// A map would lose the order and make one of these wrong.
	a := mustParse(t, `{"bash": {"rm *": "deny", "*": "allow"}}`)
	b := mustParse(t, `{"bash": {"*": "allow", "rm *": "deny"}}`)
	q := Query{Tool: "bash", IsShell: true, Subjects: []string{"rm x"}}
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

func TestParseInvalidDecisionDropsTheEntry(t *testing.T) {
	tests := []struct {
		name, src, warnKey string
		query              Query
		want               Decision
	}{
		{
			name:    "plain typo falls back to the default",
			src:     `{"write_file": "alow"}`,
			warnKey: `"write_file"`,
			query:   Query{Tool: "write_file", Subjects: []string{"a.go"}},
			want:    Ask,
		},
		{
			// Keeping `"*": "allow"` alone would let .env through.
			name:    "a typo in a table drops the whole table",
			src:     `{"read_file": {"*": "allow", "*.env": "dney"}}`,
			warnKey: `"*.env"`,
			query:   Query{Tool: "read_file", Subjects: []string{"config/.env"}},
			want:    Deny,
		},
		{
			name:    "decisions are case-sensitive",
			src:     `{"bash": {"*": "allow", "rm *": "Deny"}}`,
			warnKey: `"Deny"`,
			query:   Query{Tool: "bash", IsShell: true, Subjects: []string{"rm -rf x"}},
			want:    Ask,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, warnings, err := Parse(json.RawMessage(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tt.warnKey) || !strings.Contains(warnings[0], "allow, ask or deny") {
				t.Fatalf("warnings = %q, want one naming %s and the valid decisions", warnings, tt.warnKey)
			}
			if got := r.Check(tt.query, nil).Decision; got != tt.want {
				t.Errorf("decision = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`[]`, `permission: expected an object mapping tool names`},
		{`"allow"`, `got the string "allow"`},
		{`{"bash": 1}`, `permission: "bash": expected "allow", "ask", "deny" or an object`},
		{`{"bash": ["allow"]}`, `"bash": expected "allow", "ask", "deny" or an object of {"<pattern>": "<decision>"}, got an array`},
		{`{"bash": null}`, `got null`},
		{`{"bash": {"git *": true}}`, `permission: "bash": "git *": expected "allow", "ask" or "deny", got a boolean`},
		{`{"bash": {"git *": {"x": "allow"}}}`, `"git *": expected "allow", "ask" or "deny", got an object`},
		{`{"bash": "ask", "bash": "allow"}`, `permission: "bash" appears twice`},
		{`{"": "allow"}`, `permission: a key is empty`},
		{`{"bash": "ask"`, `permission:`},
		{`{"bash": "ask"} {}`, `unexpected data after the object`},
		{`{"bash" "ask"}`, `permission:`},
	}
	for _, tt := range tests {
		_, _, err := Parse(json.RawMessage(tt.src))
		if err == nil {
			t.Errorf("Parse(%s): no error, want one containing %q", tt.src, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s) = %q, want it to contain %q", tt.src, err, tt.want)
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
	f.Add(`{"a": "allow", "a": "ask"}`)
	f.Add(`{"x": {"y": [1, {"z": null}]}}`)
	f.Add(`null`)
	f.Add(`{"web_*": "allow", "w?b_fetch": "deny"}`)
	f.Fuzz(func(t *testing.T, src string) {
		r, _, err := Parse(json.RawMessage(src))
		if err != nil {
			if r != nil {
				t.Fatal("rules returned with an error")
			}
			return
		}
		// Whatever parsed must be usable: checks must not panic and must
		// return a real decision.
		for _, q := range []Query{
			{Tool: "bash", IsShell: true, Subjects: []string{"git status && rm -rf x"}},
			{Tool: "read_file", Subjects: []string{"config/.env"}},
			{Tool: "mcp__fs_read"},
			{Tool: "web_fetch", Subjects: []string{"https://example.com"}, ReadOnly: true},
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

func TestParseWarningText(t *testing.T) {
	_, warnings, err := Parse(json.RawMessage(`{"bash": "alow", "read_file": {"*": "allow", "*.env": "dney", "*.pem": "nope"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`permission: "bash" = "alow" is not a decision (use allow, ask or deny); the entry is ignored, so other keys and the built-in defaults apply`,
		`permission: "read_file": "*.env" = "dney" is not a decision (use allow, ask or deny); the whole "read_file" entry is ignored, so other keys and the built-in defaults apply`,
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestEntries(t *testing.T) {
	r := mustParse(t, `{"read_file": {"*": "allow"}, "mcp__*": "ask"}`)
	entries := r.Entries()
	if entries[0].Key != "read_file" || entries[0].Source != SourceConfig || len(entries[0].Rules) != 1 {
		t.Fatalf("first entry = %+v, want the config's read_file", entries[0])
	}
	if entries[1].Key != "mcp__*" || entries[1].Decision != Ask {
		t.Fatalf("second entry = %+v, want mcp__* = ask", entries[1])
	}
	for _, e := range entries[2:] {
		if e.Source != SourceDefault {
			t.Fatalf("entry %+v after the config ones is not a default", e)
		}
		if e.Key == "read_file" {
			t.Fatal("the replaced read_file default is still listed")
		}
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
