package permission

import (
	"slices"
	"sync"
	"testing"
)

func policy(t *testing.T, user, project string) *Policy {
	t.Helper()
	var p *Rules
	if project != "" {
		p = mustParse(t, project)
	}
	return NewPolicy(mustParse(t, user), p)
}

// The project's rules are a second layer that only tightens: where one of
// its rules matches and is stricter, it decides; a rule that does not
// match, or that is looser, leaves your decision alone.
func TestPolicyLayers(t *testing.T) {
	tests := []struct {
		name, user, project string
		query               Query
		want                Decision
		source              Source
		pattern, subject    string
		cause               Cause
	}{
		{name: "no rules at all: the defaults", query: read(".env"),
			want: Deny, source: SourceDefault, pattern: "*.env", subject: ".env"},
		{name: "a project ask tightens your allow", user: `{"bash": {"git *": "allow"}}`, project: `{"bash": {"git push *": "ask"}}`,
			query: bash("git push origin main"), want: Ask, source: SourceConfig, pattern: "git push *", subject: "git push origin main"},
		{name: "a project table that does not match leaves your allow", user: `{"bash": {"git *": "allow"}}`, project: `{"bash": {"git push *": "ask"}}`,
			query: bash("git status"), want: Allow, source: SourceConfig, pattern: "git *", subject: "git status"},
		{name: "a project deny tightens", user: `{"bash": "allow"}`, project: `{"bash": {"rm *": "deny"}}`,
			query: bash("ls && rm -rf build"), want: Deny, source: SourceConfig, pattern: "rm *", subject: "rm -rf build"},
		{name: "and reaches wrapped commands", user: `{"bash": "allow"}`, project: `{"bash": {"rm *": "deny"}}`,
			query: bash("sudo rm -rf build"), want: Deny, source: SourceConfig, pattern: "rm *", subject: "rm -rf build"},
		{name: "a project deny that does not match leaves your allow", user: `{"bash": "allow"}`, project: `{"bash": {"rm *": "deny"}}`,
			query: bash("ls -la"), want: Allow, source: SourceConfig},
		{name: "a project path table that does not match leaves the default", project: `{"read_file": {"secrets/*": "deny"}}`,
			query: read("main.go"), want: Allow, source: SourceDefault, pattern: "*", subject: "main.go"},
		{name: "a project path table that matches denies", project: `{"read_file": {"secrets/*": "deny"}}`,
			query: read("secrets/prod.json"), want: Deny, source: SourceConfig, pattern: "secrets/*", subject: "secrets/prod.json"},
		{name: "the project's matched ask wins over its unmatched commands", user: `{"bash": "allow"}`, project: `{"bash": {"git push *": "ask"}}`,
			query: bash("ls; git push origin"), want: Ask, source: SourceConfig, pattern: "git push *", subject: "git push origin"},
		{name: "a project allow never loosens your deny", user: `{"bash": {"*": "allow", "rm *": "deny"}}`, project: `{"bash": "allow"}`,
			query: bash("rm x"), want: Deny, source: SourceConfig, pattern: "rm *", subject: "rm x"},
		{name: "nor a default deny", project: `{"read_file": "allow"}`,
			query: read("config/.env"), want: Deny, source: SourceDefault, pattern: "*.env", subject: "config/.env"},
		{name: "nor your ask", project: `{"bash": {"*": "allow"}}`,
			query: bash("make"), want: Ask, source: SourceFallback, subject: "make"},
		{name: "a project single decision covers the tool", user: `{"mcp__fs__read": "allow"}`, project: `{"mcp__*": "deny"}`,
			query: Query{Tool: "mcp__fs__read"}, want: Deny, source: SourceConfig},
		{name: "a project allow rule that does not cover a redirection does not ask", user: `{"bash": "allow"}`, project: `{"bash": {"git *": "allow"}}`,
			query: bash("git log > out"), want: Allow, source: SourceConfig},
		{name: "a line the project's deny rules cannot be checked against asks", user: `{"bash": "allow"}`, project: `{"bash": {"rm *": "deny"}}`,
			query: bash("$X y"), want: Ask, source: SourceConfig, subject: "$X y", cause: CauseOpaque},
		{name: "an unparsable line under project deny rules asks", user: `{"bash": "allow"}`, project: `{"bash": {"rm *": "deny"}}`,
			query: bash("echo 'x"), want: Ask, source: SourceConfig, cause: CauseUnparsed},
		{name: "a project table of allows has nothing to check", user: `{"bash": "allow"}`, project: `{"bash": {"git *": "allow"}}`,
			query: bash("echo 'x"), want: Allow, source: SourceConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policy(t, tt.user, tt.project).Check(tt.query)
			if got.Decision != tt.want || got.Source != tt.source || got.Pattern != tt.pattern || got.Subject != tt.subject || got.Cause != tt.cause {
				t.Fatalf("Check = %s source %s pattern %q subject %q cause %s; want %s source %s pattern %q subject %q cause %s",
					got.Decision, got.Source, got.Pattern, got.Subject, got.Cause, tt.want, tt.source, tt.pattern, tt.subject, tt.cause)
			}
			if got.Decision == Deny && got.Reason == "" {
				t.Error("a deny without a reason")
			}
		})
	}
}

// Grants answer your rules' asks. They never lift a deny, nor an ask the
// project's rules add.
func TestPolicyGrantsLiftOnlyYourAsks(t *testing.T) {
	p := policy(t, `{"bash": {"*": "ask", "rm *": "deny"}}`, `{"bash": {"git push *": "ask"}}`)

	ls := bash("ls -la")
	if got := p.GrantPreview(ls); !slices.Equal(got, []string{`bash "ls *"`}) {
		t.Fatalf("GrantPreview = %q", got)
	}
	if got := p.Grants(); len(got) != 0 {
		t.Fatalf("a preview granted %q", got)
	}
	if got := p.Grant(ls); !slices.Equal(got, []string{`bash "ls *"`}) {
		t.Fatalf("Grant = %q", got)
	}
	if got := p.Check(bash("ls")); got.Decision != Allow || got.Source != SourceGrant || got.Pattern != "ls *" {
		t.Errorf("after the grant: %+v", got)
	}

	push := bash("git push origin")
	p.Grant(push)
	if got := p.Check(push); got.Decision != Ask || got.Source != SourceConfig || got.Pattern != "git push *" {
		t.Errorf("a grant lifted the project's ask: %+v", got)
	}

	rm := bash("rm -rf build")
	if got := p.Grant(rm); len(got) != 0 {
		t.Errorf("Grant offered %q for a denied call", got)
	}
	if got := p.Check(rm); got.Decision != Deny {
		t.Errorf("rm after Grant: %+v", got)
	}

	if got, want := p.Grants(), []string{`bash "ls *"`, `bash "git push *"`}; !slices.Equal(got, want) {
		t.Errorf("Grants = %q, want %q", got, want)
	}
	// Grants belong to one policy, that is to one session.
	if got := policy(t, `{"bash": {"*": "ask"}}`, "").Check(bash("ls")); got.Decision != Ask {
		t.Errorf("a fresh policy allowed ls: %+v", got)
	}
}

// Subagents share their parent's policy: granting while checking must be
// safe (run with -race).
func TestPolicyConcurrent(t *testing.T) {
	p := NewPolicy(nil, mustParse(t, `{"bash": {"rm *": "deny"}}`))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			p.Grant(bash(string(rune('a'+i)) + " x"))
		}()
		go func() {
			defer wg.Done()
			if got := p.Check(bash("a x; rm y")); got.Decision != Deny {
				t.Errorf("rm under a project deny: %s", got.Decision)
			}
			_ = p.Grants()
		}()
	}
	wg.Wait()
	if n := len(p.Grants()); n != 8 {
		t.Fatalf("%d grants, want 8", n)
	}
}
