package permission

import "testing"

func TestDescribe(t *testing.T) {
	mixed := mustParse(t, `{"bash": {"*": "ask", "git *": "allow", "echo *": "allow", "git push *": "ask"}, "mcp__*": "ask"}`)
	gitOnly := mustParse(t, `{"bash": {"git *": "allow"}}`)
	var g Grants
	g.Add(Grant{Tool: "bash", Pattern: "ls *"})
	tests := []struct {
		name string
		got  Result
		want string
	}{
		{"a table rule", mixed.Check(bash("git push origin"), nil), `matched bash: "git push *"`},
		{"a plain config entry", mixed.Check(Query{Tool: "mcp__fs__write"}, nil), `matched mcp__* = ask`},
		{"no rule matches", gitOnly.Check(bash("git status; curl x"), nil), `no bash rule matches "curl x"`},
		{"no rule matches a subjectless call", mustParse(t, `{"bash_stop": {"1": "allow"}}`).Check(Query{Tool: "bash_stop"}, nil), `no bash_stop rule matches a call without a subject`},
		{"redirect", mixed.Check(bash("echo hi > f"), nil), `matched bash: "echo *", but the command line writes to a file through a redirection, which only a "*" rule covers`},
		{"assignment", mixed.Check(bash("X=1 git status"), nil), `matched bash: "git *", but the command line sets shell variables, which only a "*" rule covers`},
		{"grant and redirect", Default().Check(bash("ls > f"), &g), `granted bash "ls *" for this session, but the command line writes to a file through a redirection, which only a "*" rule covers`},
		{"unparsed", mixed.Check(bash("echo 'x"), nil), `the command line could not be parsed, so no bash rule can allow it`},
		{"opaque", mustParse(t, `{"bash": {"*": "allow", "rm *": "deny"}}`).Check(bash("$X y"), nil), `the command line runs a command decided at run time, so the bash rules cannot be checked against it`},
		{"opaque alias", mustParse(t, `{"bash": {"git *": "allow"}}`).Check(bash(`git -c alias.r="$X" r`), nil), `the command line runs a command decided at run time, so the bash rules cannot be checked against it`},
		{"the tool's default", Default().Check(bash("ls"), nil), ``},
		{"a default secret-file rule", Default().Check(read(".env"), nil), `matched read_file: "*.env"`},
		{"the default of a reading tool", Default().Check(Query{Tool: "grep", Default: Allow}, nil), ``},
		{"a grant", Default().Check(bash("ls -la"), &g), `allowed for this session by bash "ls *"`},
	}
	for _, tt := range tests {
		if got := tt.got.Describe(); got != tt.want {
			t.Errorf("%s: Describe = %q, want %q", tt.name, got, tt.want)
		}
	}
}
