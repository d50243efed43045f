package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An allow rule narrower than `*` names a program; it does not cover the
// other code a command runs: what a git setting names, the command a
// wrapper runs, a redefined name. Deny rules match the program however it
// is spelled, and neither kind of rule is widened by that spelling.
func TestAllowRulesDoNotLaunderAndDenyRulesSeeThroughSpellings(t *testing.T) {
	const rules = `{"bash": {"*": "ask", "git *": "allow", "sudo *": "allow", "find *": "allow", "make *": "allow",
		"rm *": "deny", "git reset *": "deny"}}`
	r := mustParse(t, rules)
	tests := []struct {
		line  string
		want  Decision
		cause Cause
	}{
		{"git -c core.fsmonitor='touch x; false' status", Ask, CauseRunsCode},
		{"git -c core.pager=./pager log", Ask, CauseRunsCode},
		{"git --exec-path=/tmp/bin status", Ask, CauseRunsCode},
		{"git difftool -x ./differ", Ask, CauseRunsCode},
		{"sudo make install", Ask, CauseRunsCode},
		{"find . -exec touch x \\;", Ask, CauseRunsCode},
		{"make CC=./cc", Ask, CauseRunsCode},
		{"git status", Allow, CauseNone},
		{"git -c color.ui=never -c core.pager=cat log", Ask, CauseRunsCode},
		{"git -c user.email=a@b commit -m x", Allow, CauseNone},
		{"/bin/rm notes", Deny, CauseNone},
		{"RM notes", Deny, CauseNone},
		{"git -C sub reset --hard", Deny, CauseNone},
		{"/usr/lib/git-core/git-reset HEAD", Deny, CauseNone},
		{"alias del=rm; shopt -s expand_aliases; del notes", Deny, CauseNone},
		{"Git status", Ask, CauseNone}, // the canonical `git status` never widens an allow
		{"/usr/bin/git status", Ask, CauseNone},
	}
	for _, tt := range tests {
		got := r.Check(bash(tt.line), nil)
		if got.Decision != tt.want || got.Cause != tt.cause {
			t.Errorf("Check(%q) = %s (cause %s, pattern %q, subject %q); want %s (cause %s)",
				tt.line, got.Decision, got.Cause, got.Pattern, got.Subject, tt.want, tt.cause)
		}
	}
	res := r.Check(bash("git -c core.pager=./pager log"), nil)
	if d := res.Describe(); !strings.Contains(d, "runs other code") || !strings.Contains(d, "core.pager") {
		t.Errorf("Describe = %q, want it to say the command runs other code", d)
	}
}

// A grant of a pattern does not cover a command that runs other code;
// what `always` grants for one is exactly that command.
func TestGrantsForCommandsThatRunOtherCodeAreExact(t *testing.T) {
	r := mustParse(t, `{"bash": {"*": "ask"}}`)
	var g Grants
	g.Add(Grant{Tool: "bash", Pattern: "git *"})
	line := "git -c core.pager=./pager log"
	if got := r.Check(bash(line), &g); got.Decision != Ask || got.Cause != CauseRunsCode {
		t.Fatalf("a `git *` grant covered %q: %s (%s)", line, got.Decision, got.Cause)
	}
	grants := r.GrantFor(bash(line), &g)
	if len(grants) != 1 || !grants[0].Exact || grants[0].Pattern != "git -c core.pager=./pager log" {
		t.Fatalf("GrantFor = %v, want exactly the command", grants)
	}
	g.Add(grants...)
	if got := r.Check(bash(line), &g); got.Decision != Allow {
		t.Errorf("the exact grant did not cover %q: %s", line, got.Decision)
	}
}

// The policy judges a path tool's paths as given and as the files they
// resolve to, so a link cannot carry a secret past the default rules.
func TestPolicyJudgesTheFileAPathResolvesTo(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{".env": "K=v", "ok.txt": "x", ".env.sample": "K="} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"notes": ".env", "dangling": "future.pem", "fine": "ok.txt"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(nil, nil, WithPathResolver(WorkspaceResolver(root)))
	for path, want := range map[string]Decision{
		"notes": Deny, "dangling": Deny, "dir/../notes": Deny, filepath.Join(root, "notes"): Deny,
		"fine": Allow, "ok.txt": Allow, ".env.sample": Allow, "missing.txt": Allow,
	} {
		if got := p.Check(read(path)); got.Decision != want {
			t.Errorf("read_file %q: %s (subject %q), want %s", path, got.Decision, got.Subject, want)
		}
	}
	if got := NewPolicy(nil, nil).Check(read("notes")); got.Decision != Allow {
		t.Errorf("without a resolver the link is judged by its own name: %s", got.Decision)
	}
	resolve := WorkspaceResolver(root)
	if got := resolve("notes"); !slices.Equal(got, []string{".env"}) {
		t.Errorf("resolve(notes) = %q, want [.env]", got)
	}
	if got := resolve("ok.txt"); got != nil {
		t.Errorf("resolve(ok.txt) = %q, want nothing", got)
	}
}
