package permission

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// A git alias defined on the command line is judged as what it runs, by
// deny rules (directly and through wrappers) and by allow rules.
func TestBashGitAliases(t *testing.T) {
	const denyReset = `{"bash": {"*": "allow", "git reset *": "deny"}}`
	const gitOnly = `{"bash": {"git *": "allow"}}`
	const gitNoPush = `{"bash": {"git *": "allow", "git push *": "ask"}}`
	tests := []struct {
		name, config, line string
		want               Decision
		pattern, subject   string
		cause              Cause
	}{
		{name: "deny reaches the alias", config: denyReset, line: "git -c alias.r='reset --hard' r",
			want: Deny, pattern: "git reset *", subject: "git reset --hard"},
		{name: "and a chain of aliases", config: denyReset, line: "git -c alias.a=b -c alias.b=reset a --hard",
			want: Deny, pattern: "git reset *", subject: "git reset --hard"},
		{name: "and a wrapped alias", config: denyReset, line: "sudo git -c alias.r='reset --hard' r",
			want: Deny, pattern: "git reset *", subject: "git reset --hard"},
		{name: "and a shell alias", config: denyReset, line: "git -c alias.x='!git reset --hard' x",
			want: Deny, pattern: "git reset *", subject: "git reset --hard"},
		{name: "a harmless alias under the deny", config: denyReset, line: "git -c alias.s=status s",
			want: Allow, pattern: "*", subject: "git -c alias.s=status s"},
		{name: "git * does not allow a shell alias", config: gitOnly, line: "git -c alias.x='!sh' x",
			want: Ask, subject: "sh", cause: CauseNoMatch},
		{name: "nor the commands of its script", config: gitOnly, line: "git -c alias.x='!git log; curl x' x",
			want: Ask, subject: "curl x", cause: CauseNoMatch},
		{name: "git * allows a git alias", config: gitOnly, line: "git -c alias.l='log --oneline' l",
			want: Allow, pattern: "git *", subject: "git -c alias.l=log --oneline l"},
		{name: "an ask reaches the alias", config: gitNoPush, line: "git -c alias.p='push -f' p",
			want: Ask, pattern: "git push *", subject: "git push -f"},
		{name: "an unresolvable alias asks", config: gitOnly, line: `git -c alias.r="$X" r`,
			want: Ask, pattern: "git *", subject: `git -c alias.r="$X" r`, cause: CauseOpaque},
		{name: "a catch-all allow covers it", config: `{"bash": {"*": "allow"}}`, line: `git -c alias.r="$X" r`,
			want: Allow, pattern: "*", subject: `git -c alias.r="$X" r`},
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

// A line too large for the analysis to finish is not allowed by a rule
// narrower than "*": the aliases past the limit were not read.
func TestBashLineTheAnalysisGaveUpOn(t *testing.T) {
	line := strings.Repeat("( ", 1100) + "git status" + strings.Repeat(" )", 1100) + "; git -c alias.x='!sh' x"
	if got := mustParse(t, `{"bash": {"git *": "allow"}}`).Check(bash(line), nil); got.Decision != Ask || got.Cause != CauseOpaque {
		t.Errorf("under git *: %s cause %s, want ask (opaque)", got.Decision, got.Cause)
	}
	if got := mustParse(t, `{"bash": {"*": "allow"}}`).Check(bash(line), nil); got.Decision != Allow {
		t.Errorf("under *: %s", got.Decision)
	}
}

// A grant never lifts an alias the rules cannot see through, and the
// prompt does not offer one.
func TestGrantsDoNotCoverAnUnresolvableAlias(t *testing.T) {
	r := mustParse(t, `{"bash": {"git *": "allow"}}`)
	var g Grants
	g.Add(Grant{Tool: "bash", Pattern: "git *"}, Grant{Tool: "bash", Pattern: `git -c alias.r="$X" r`, Exact: true})
	q := bash(`git -c alias.r="$X" r`)
	if got := r.Check(q, &g); got.Decision != Ask || got.Cause != CauseOpaque {
		t.Errorf("with grants: %+v, want ask (opaque)", got)
	}
	if got := r.GrantFor(q, &g); got != nil {
		t.Errorf("GrantFor offers %v", got)
	}
	// The commands of a shell alias are granted like any other.
	q = bash("git -c alias.x='!make test' x")
	grants := r.GrantFor(q, nil)
	if len(grants) != 1 || grants[0] != (Grant{Tool: "bash", Pattern: "make test *"}) {
		t.Fatalf("GrantFor = %v, want make test *", grants)
	}
	var held Grants
	held.Add(grants...)
	if got := r.Check(q, &held); got.Decision != Allow {
		t.Errorf("after the grant: %+v", got)
	}
}

// Check reads the analyses it is handed, and only those of its subjects.
func TestCheckUsesTheQuerysAnalyses(t *testing.T) {
	r := mustParse(t, `{"bash": {"*": "allow", "rm *": "deny"}}`)
	q := bash("rm -rf x")
	q.Shell = []*shellguard.Analysis{shellguard.Analyze("ls")}
	if got := r.Check(q, nil); got.Decision != Deny {
		t.Errorf("an analysis of another line was trusted: %+v", got)
	}
	q.Shell = []*shellguard.Analysis{shellguard.Analyze("rm -rf x")}
	if got := r.Check(q, nil); got.Decision != Deny || got.Subject != "rm -rf x" {
		t.Errorf("with its own analysis: %+v", got)
	}
	q = Query{Tool: "bash", IsShell: true, Default: Ask, Subjects: []string{"ls", "rm x"}, Shell: []*shellguard.Analysis{shellguard.Analyze("ls")}}
	if got := r.Check(q, nil); got.Decision != Deny || got.Subject != "rm x" {
		t.Errorf("a line without an analysis: %+v", got)
	}
}
