package permission

import (
	"testing"
)

type checkCase struct {
	name    string
	config  string
	query   Query
	want    Decision
	source  Source
	key     string
	pattern string
}

func runChecks(t *testing.T, tests []checkCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.config)
			got := r.Check(tt.query, nil)
			if got.Decision != tt.want {
				t.Fatalf("decision = %s, want %s (result %+v)", got.Decision, tt.want, got)
			}
			if tt.source != "" && got.Source != tt.source {
				t.Errorf("source = %s, want %s", got.Source, tt.source)
			}
			if got.Key != tt.key {
				t.Errorf("key = %q, want %q", got.Key, tt.key)
			}
			if got.Pattern != tt.pattern {
				t.Errorf("pattern = %q, want %q", got.Pattern, tt.pattern)
			}
		})
	}
}

// read is a call of a tool that reads workspace paths (read_file's
// effect and subjects); the name alone would get it nothing.
func read(paths ...string) Query {
	return Query{Tool: "read_file", Subjects: paths, Default: Allow, Paths: true}
}

// readMany is read_many_files: another path-reading tool.
func readMany(paths ...string) Query {
	return Query{Tool: "read_many_files", Subjects: paths, Default: Allow, Paths: true}
}

// write is a call of a tool that writes workspace paths.
func write(tool string, paths ...string) Query {
	return Query{Tool: tool, Subjects: paths, Default: Ask, Paths: true}
}

func TestDefaults(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "plain file", query: read("main.go"), want: Allow, source: SourceDefault, key: "read_file", pattern: "*"},
		{name: ".env", query: read(".env"), want: Deny, source: SourceDefault, key: "read_file", pattern: "*.env"},
		{name: "nested .env", query: read("config/.env"), want: Deny, key: "read_file", pattern: "*.env"},
		{name: "absolute .env", query: read("/srv/app/.env"), want: Deny, key: "read_file", pattern: "*.env"},
		{name: "windows .env", query: read(`C:\app\.env`), want: Deny, key: "read_file", pattern: "*.env"},
		{name: "upper-case .ENV", query: read("config/.ENV"), want: Deny, key: "read_file", pattern: "*.env"},
		{name: ".env.local", query: read(".env.local"), want: Deny, key: "read_file", pattern: ".env.*"},
		{name: ".env.example", query: read("config/.env.example"), want: Allow, key: "read_file", pattern: ".env*.example"},
		{name: "key.pem", query: read("certs/key.pem"), want: Deny, key: "read_file", pattern: "*.pem"},
		{name: "tls.key", query: read("deploy/tls.key"), want: Deny, key: "read_file", pattern: "*.key"},
		{name: "id_rsa", query: read("/home/u/.ssh/id_rsa"), want: Deny, key: "read_file", pattern: "id_rsa*"},
		{name: "credentials", query: read(".aws/credentials"), want: Deny, key: "read_file", pattern: "credentials"},
		{name: "a public key is not a secret", query: read(".ssh/id_rsa.pub"), want: Allow, key: "read_file", pattern: "id_*.pub"},
		{name: "a directory named like env", query: read("x.env.d/main.go"), want: Allow, key: "read_file", pattern: "*"},
		{name: "read_many_files shares them", query: readMany(".env"), want: Deny, key: "read_many_files", pattern: "*.env"},
		// Nothing is decided by a name: any tool that reads paths gets the
		// table, and read_file's name without its effect gets nothing.
		{name: "an unknown tool that reads paths", query: Query{Tool: "mcp__fs__read", Subjects: []string{"app/.env"}, Default: Allow, Paths: true}, want: Deny, source: SourceDefault, key: "mcp__fs__read", pattern: "*.env"},
		{name: "read_file's name with no effect asks", query: Query{Tool: "read_file", Subjects: []string{"main.go"}}, want: Ask, source: SourceFallback, key: "read_file"},
		{name: "a reading tool whose subjects are not paths", query: Query{Tool: "grep", Subjects: []string{".env"}, Default: Allow}, want: Allow, source: SourceFallback, key: "grep"},
		{name: "web_fetch asks though it only reads", query: Query{Tool: "web_fetch", Subjects: []string{"https://go.dev"}, Default: Ask}, want: Ask, source: SourceFallback, key: "web_fetch"},
		{name: "write_file asks", query: write("write_file", "a.go"), want: Ask, source: SourceFallback, key: "write_file"},
		{name: "a writing tool gets no secret table", query: write("delete_file", ".env"), want: Ask, source: SourceFallback, key: "delete_file"},
		{name: "bash asks", query: bash("ls"), want: Ask, source: SourceFallback, key: "bash"},
		{name: "a tool keeping the agent's state", query: Query{Tool: "todo_write", Default: Allow}, want: Allow, source: SourceFallback, key: "todo_write"},
		{name: "a reading git tool", query: Query{Tool: "git_log", Subjects: []string{"main.go"}, Default: Allow}, want: Allow, source: SourceFallback, key: "git_log"},
		{name: "a tool of unknown effect asks", query: Query{Tool: "mcp__fs__write"}, want: Ask, source: SourceFallback, key: "mcp__fs__write"},
	})
}

func TestResolution(t *testing.T) {
	runChecks(t, []checkCase{
		{
			name:   "a config entry replaces the defaults",
			config: `{"read_file": {"*": "allow"}}`,
			query:  read("config/.env"), want: Allow, source: SourceConfig, key: "read_file", pattern: "*",
		},
		{
			name:   "a replacing table matches full paths, case and all",
			config: `{"read_file": {"*": "allow", "*.env": "deny"}}`,
			query:  read("config/.ENV"), want: Allow, key: "read_file", pattern: "*",
		},
		{
			name:   "no rule in the table matches: ask",
			config: `{"read_file": {"secret/*": "deny"}}`,
			query:  read("main.go"), want: Ask, source: SourceConfig, key: "read_file",
		},
		{
			name:   "glob tool key",
			config: `{"mcp__*": "deny"}`,
			query:  Query{Tool: "mcp__fs__write"}, want: Deny, source: SourceConfig, key: "mcp__*",
		},
		{
			name:   "? in a tool key",
			config: `{"web_fetc?": "allow"}`,
			query:  Query{Tool: "web_fetch", Subjects: []string{"https://go.dev"}, Default: Ask}, want: Allow, key: "web_fetc?",
		},
		{
			name:   "an exact key beats an earlier glob key",
			config: `{"mcp__*": "deny", "mcp__fs__read": "allow"}`,
			query:  Query{Tool: "mcp__fs__read"}, want: Allow, key: "mcp__fs__read",
		},
		{
			name:   "the first matching glob key wins",
			config: `{"mcp__fs__*": "allow", "mcp__*": "deny"}`,
			query:  Query{Tool: "mcp__fs__read"}, want: Allow, key: "mcp__fs__*",
		},
		{
			name:   "the first matching glob key wins, the other way round",
			config: `{"mcp__*": "deny", "mcp__fs__*": "allow"}`,
			query:  Query{Tool: "mcp__fs__read"}, want: Deny, key: "mcp__*",
		},
		{
			name:   "a glob key replaces a default too",
			config: `{"web_*": "allow"}`,
			query:  Query{Tool: "web_fetch", Subjects: []string{"https://go.dev"}, Default: Ask}, want: Allow, key: "web_*",
		},
		{
			name:   "a glob key that does not match leaves the default",
			config: `{"mcp__*": "allow"}`,
			query:  read(".env"), want: Deny, key: "read_file", pattern: "*.env",
		},
		{
			name:   "deny has no precedence: a later allow wins",
			config: `{"write_file": {"*": "deny", "docs/*": "allow"}}`,
			query:  write("write_file", "docs/a.md"), want: Allow, pattern: "docs/*", key: "write_file",
		},
		{
			name:   "a config entry can deny a tool that is allowed by default",
			config: `{"grep": "deny"}`,
			query:  Query{Tool: "grep", Subjects: []string{"password"}, Default: Allow}, want: Deny, key: "grep",
		},
		{
			name:   "no subject matches only *",
			config: `{"bash_stop": {"?*": "deny", "*": "allow"}}`,
			query:  Query{Tool: "bash_stop"}, want: Allow, key: "bash_stop", pattern: "*",
		},
		{
			name:   "no subject is asked when only narrower rules exist",
			config: `{"bash_stop": {"1": "allow"}}`,
			query:  Query{Tool: "bash_stop"}, want: Ask, key: "bash_stop",
		},
	})
}

// The reference allowed a multi-subject call when any subject matched.
// Here the strictest subject decides.
func TestMultiSubject(t *testing.T) {
	runChecks(t, []checkCase{
		{
			name:  "one .env among harmless paths denies the call",
			query: readMany("a.go", "config/.env", "b.go"),
			want:  Deny, key: "read_many_files", pattern: "*.env",
		},
		{
			name:  "every path allowed",
			query: readMany("a.go", ".env.example"),
			want:  Allow, key: "read_many_files", pattern: "*",
		},
		{
			name:   "one asked path asks",
			config: `{"move_file": {"*": "ask", "src/*": "allow"}}`,
			query:  write("move_file", "src/a.go", "/etc/passwd"),
			want:   Ask, key: "move_file", pattern: "*",
		},
		{
			name:   "both ends allowed",
			config: `{"move_file": {"*": "ask", "src/*": "allow"}}`,
			query:  write("move_file", "src/a.go", "src/b.go"),
			want:   Allow, key: "move_file", pattern: "src/*",
		},
		{
			name:   "deny beats ask across subjects, wherever it is",
			config: `{"apply_patch": {"*": "allow", "vendor/*": "ask", "*.lock": "deny"}}`,
			query:  write("apply_patch", "vendor/x.go", "go.lock"),
			want:   Deny, key: "apply_patch", pattern: "*.lock",
		},
	})
}

func TestResultSubjectAndReason(t *testing.T) {
	r := Default()
	got := r.Check(readMany("a.go", "config/.env"), nil)
	if got.Subject != "config/.env" {
		t.Errorf("subject = %q, want the denied path", got.Subject)
	}
	if want := `Refused by the permission rule read_many_files: "*.env" = deny.`; got.Reason != want {
		t.Errorf("reason = %q, want %q", got.Reason, want)
	}
	plain := mustParse(t, `{"mcp__*": "deny"}`).Check(Query{Tool: "mcp__fs__write"}, nil)
	if want := `Refused by the permission rules: mcp__fs__write is denied.`; plain.Reason != want {
		t.Errorf("reason = %q, want %q", plain.Reason, want)
	}
	if allowed := r.Check(read("a.go"), nil); allowed.Reason != "" {
		t.Errorf("an allowed call has reason %q", allowed.Reason)
	}
}

func TestAskAsAllow(t *testing.T) {
	for d, want := range map[Decision]Decision{Allow: Allow, Ask: Allow, Deny: Deny} {
		if got := (Result{Decision: d}).AskAsAllow().Decision; got != want {
			t.Errorf("AskAsAllow(%s) = %s, want %s", d, got, want)
		}
	}
}
