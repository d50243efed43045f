package permission

import (
	"strings"
	"testing"
)

// bash is a call of the bash tool: it runs programs, so it asks by default.
func bash(line string) Query {
	return Query{Tool: "bash", IsShell: true, Subjects: []string{line}, Default: Ask}
}

func TestBashRules(t *testing.T) {
	const gitOnly = `{"bash": {"git *": "allow"}}`
	const mixed = `{"bash": {"*": "ask", "git *": "allow", "ls *": "allow", "echo *": "allow", "git push *": "ask", "rm *": "deny"}}`
	tests := []struct {
		name, config, line string
		want               Decision
		pattern, subject   string
		cause              Cause
	}{
		{name: "one allowed command", config: gitOnly, line: "git status -s", want: Allow, pattern: "git *", subject: "git status -s"},
		{name: "git * does not allow what follows a ;", config: gitOnly, line: "git status; curl x | sh", want: Ask, subject: "curl x", cause: CauseNoMatch},
		{name: "git * does not allow what follows &&", config: gitOnly, line: "git status && rm -rf x", want: Ask, subject: "rm -rf x", cause: CauseNoMatch},
		{name: "nor a command substitution", config: gitOnly, line: "git log $(curl evil)", want: Ask, subject: "curl evil", cause: CauseNoMatch},
		{name: "nor a pipeline", config: gitOnly, line: "git diff | tee out", want: Ask, subject: "tee out", cause: CauseNoMatch},
		{name: "all parts allowed", config: mixed, line: "git status && ls -la | echo done", want: Allow, pattern: "git *", subject: "git status"},
		{name: "a deny anywhere denies", config: mixed, line: "git status && rm -rf x", want: Deny, pattern: "rm *", subject: "rm -rf x"},
		{name: "a deny after an ask still denies", config: mixed, line: "git push origin; rm x", want: Deny, pattern: "rm *", subject: "rm x"},
		{name: "last match wins per command", config: mixed, line: "git push origin main", want: Ask, pattern: "git push *", subject: "git push origin main"},
		{name: "quotes are removed before matching", config: mixed, line: `"r""m" -rf x`, want: Deny, pattern: "rm *", subject: "rm -rf x"},
		{name: "words are joined by single spaces", config: mixed, line: "git    status", want: Allow, pattern: "git *", subject: "git status"},
		{name: "a bare command matches cmd *", config: gitOnly, line: "git", want: Allow, pattern: "git *", subject: "git"},
		{name: "a similar program does not", config: gitOnly, line: "gitk --all", want: Ask, subject: "gitk --all", cause: CauseNoMatch},
		{name: "a redirection into a file asks", config: mixed, line: "echo hi > ~/.bashrc", want: Ask, pattern: "echo *", subject: "echo hi", cause: CauseRedirect},
		{name: "an append redirection asks", config: mixed, line: "git log >> notes", want: Ask, pattern: "git *", cause: CauseRedirect, subject: "git log"},
		{name: ">&file writes a file", config: mixed, line: "git log >&out", want: Ask, pattern: "git *", cause: CauseRedirect, subject: "git log"},
		{name: "harmless redirections do not", config: mixed, line: "git status 2>&1 >/dev/null </dev/null 2>/dev/null >&2", want: Allow, pattern: "git *", subject: "git status"},
		{name: "a here-string does not", config: mixed, line: "git apply --check <<< x", want: Allow, pattern: "git *", subject: "git apply --check"},
		{name: "an environment prefix asks", config: mixed, line: "PATH=/tmp/evil git status", want: Ask, pattern: "git *", subject: "git status", cause: CauseAssign},
		{name: "an assignment earlier in the line asks", config: mixed, line: "GIT_SSH_COMMAND=x; git fetch", want: Ask, pattern: "git *", subject: "git fetch", cause: CauseAssign},
		{name: "export asks", config: mixed, line: "export PATH=/tmp; ls", want: Ask, pattern: "ls *", subject: "ls", cause: CauseAssign},
		{name: "a for loop variable asks", config: mixed, line: "for PATH in /tmp; do git status; done", want: Ask, pattern: "git *", subject: "git status", cause: CauseAssign},
		{name: "a catch-all allow covers redirections", config: `{"bash": {"*": "allow", "rm *": "deny"}}`, line: "echo hi > out.txt", want: Allow, pattern: "*", subject: "echo hi"},
		{name: "a catch-all allow still meets a deny", config: `{"bash": {"*": "allow", "rm *": "deny"}}`, line: "echo hi > out.txt; rm out.txt", want: Deny, pattern: "rm *", subject: "rm out.txt"},
		{name: "an unparsable line asks", config: `{"bash": {"*": "allow"}}`, line: "echo 'unterminated", want: Ask, cause: CauseUnparsed},
		{name: "an unparsable line under a plain allow", config: `{"bash": "allow"}`, line: "echo 'unterminated", want: Allow},
		{name: "plain deny denies without parsing", config: `{"bash": "deny"}`, line: "echo 'unterminated", want: Deny},
		{name: "an empty line has no subject", config: gitOnly, line: "", want: Ask, cause: CauseNoMatch},
		{name: "an empty line matches *", config: `{"bash": {"*": "allow"}}`, line: "  # nothing", want: Allow, pattern: "*"},
		{name: "default bash asks", line: "ls", want: Ask, subject: "ls"},
		{name: "newlines separate commands", config: gitOnly, line: "git status\nrm -rf /", want: Ask, subject: "rm -rf /", cause: CauseNoMatch},
		{name: "commands inside functions count", config: gitOnly, line: "f() { rm -rf x; }; git status", want: Ask, subject: "rm -rf x", cause: CauseNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.config).Check(bash(tt.line), nil)
			if got.Decision != tt.want || got.Pattern != tt.pattern || got.Subject != tt.subject || got.Cause != tt.cause {
				t.Fatalf("Check(%q) = %s pattern %q subject %q cause %s; want %s pattern %q subject %q cause %s",
					tt.line, got.Decision, got.Pattern, got.Subject, got.Cause, tt.want, tt.pattern, tt.subject, tt.cause)
			}
		})
	}
}

func TestBashSeveralCommandLines(t *testing.T) {
	// A tool may report more than one command line (a batch); each is
	// split, and every command of every line must be allowed.
	r := mustParse(t, `{"bash": {"git *": "allow"}}`)
	q := Query{Tool: "bash", IsShell: true, Subjects: []string{"git status", "curl x"}, Default: Ask}
	if got := r.Check(q, nil); got.Decision != Ask || got.Subject != "curl x" {
		t.Fatalf("got %s on %q, want ask on curl x", got.Decision, got.Subject)
	}
	// A hazard in one line does not taint another line.
	q = Query{Tool: "bash", IsShell: true, Subjects: []string{"git status", "X=1 true"}, Default: Ask}
	r = mustParse(t, `{"bash": {"git *": "allow", "true": "allow"}}`)
	if got := r.Check(q, nil); got.Decision != Ask || got.Subject != "true" || got.Cause != CauseAssign {
		t.Fatalf("got %+v, want ask on true for the assignment", got)
	}
}

func TestBashDenyReachesWrappedCommands(t *testing.T) {
	r := mustParse(t, `{"bash": {"*": "allow", "rm *": "deny", "git push *": "ask"}}`)
	tests := []struct {
		line    string
		want    Decision
		subject string
	}{
		{"sudo rm -rf /tmp/x", Deny, "rm -rf /tmp/x"},
		{"sh -c 'ls; rm x'", Deny, "rm x"},
		{"find . -name '*.o' -exec rm {} +", Deny, "rm {}"},
		{"ls | xargs rm", Deny, "rm"},
		{"timeout 5 rm x", Deny, "rm x"},
		{"{rm,-rf} /tmp/x", Deny, "rm -rf /tmp/x"}, // brace expansion runs rm
		// Only denies reach through a wrapper: the ask for git push does
		// not, since "*" allowed the env command as written.
		{"env git push", Allow, "env git push"},
		{"sudo ls", Allow, "sudo ls"},
		// What runs is decided at run time: the deny rules cannot be
		// checked, so the call asks.
		{"$X -rf /", Ask, "$X -rf /"},
		{`sh -c "$CMD"`, Ask, `sh -c "$CMD"`},
		{strings.Repeat("xargs ", 100) + "rm", Ask, strings.Repeat("xargs ", 100) + "rm"},
	}
	for _, tt := range tests {
		got := r.Check(bash(tt.line), nil)
		if got.Decision != tt.want || got.Subject != tt.subject {
			t.Errorf("%q = %s on %q, want %s on %q", tt.line, got.Decision, got.Subject, tt.want, tt.subject)
		}
		if tt.want == Deny && got.Reason != `Refused by the permission rule bash: "rm *" = deny.` {
			t.Errorf("%q: reason %q", tt.line, got.Reason)
		}
	}
	// A grant for the wrapper does not lift the wrapped deny either.
	var g Grants
	g.Add(Grant{Tool: "bash", Pattern: "*"})
	if got := r.Check(bash("sudo rm x"), &g).Decision; got != Deny {
		t.Errorf("sudo rm x with a * grant = %s, want deny", got)
	}
	if got := r.Check(bash("$X -rf /"), &g); got.Decision != Ask || got.Cause != CauseOpaque {
		t.Errorf("$X -rf / with a * grant = %+v, want ask (opaque)", got)
	}
	if got := r.GrantFor(bash("$X -rf /"), &g); got != nil {
		t.Errorf("GrantFor offers %v for an opaque line", got)
	}
	// Without deny rules there is nothing to check, so nothing is opaque.
	plain := mustParse(t, `{"bash": {"*": "allow"}}`)
	if got := plain.Check(bash("$X -rf /"), nil).Decision; got != Allow {
		t.Errorf("$X -rf / under a lone * allow = %s", got)
	}
}
