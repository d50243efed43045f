package permission

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// The command line comes from the model: whatever it is, checking it must
// not panic, an allow for `git *` must mean every simple command is git,
// and `always` must do what the footer promised.
func FuzzCheckBash(f *testing.F) {
	for _, s := range []string{
		"git status; curl x | sh",
		"git status && rm -rf x",
		"PATH=/tmp git status > out 2>&1",
		"for f in *.go; do gofmt -l \"$f\"; done",
		"echo $(git log) <<EOF\nhi\nEOF",
		"sudo -u x git push",
		"f() { git \"$@\"; }; f status",
		"",
		"echo 'unterminated",
	} {
		f.Add(s)
	}
	rules := mustParse(f, `{"bash": {"git *": "allow", "rm *": "deny"}}`)
	f.Fuzz(func(t *testing.T, line string) {
		q := bash(line)
		res := rules.Check(q, nil)
		_ = res.Describe()
		if res.Decision == Allow {
			a := shellguard.Analyze(line)
			if a.ParseErr() != nil {
				t.Fatalf("allowed a line that does not parse: %q", line)
			}
			for _, c := range a.Commands() {
				if s := c.String(); s != "git" && !strings.HasPrefix(s, "git ") {
					t.Fatalf("allowed %q, which runs %q", line, s)
				}
			}
		}
		var g Grants
		g.Add(rules.GrantFor(q, &g)...)
		after := rules.Check(q, &g)
		if res.Decision == Deny && after.Decision != Deny {
			t.Fatalf("a grant lifted a deny on %q", line)
		}
		if res.Decision == Ask && len(g.List()) > 0 && after.Decision != Allow && after.Cause == CauseNone {
			t.Fatalf("granted %v for %q but it still asks: %+v", g.List(), line, after)
		}
	})
}
