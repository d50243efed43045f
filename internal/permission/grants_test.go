package permission

import (
	"slices"
	"sync"
	"testing"
)

func TestGrantFor(t *testing.T) {
	r := Default()
	tests := []struct {
		name  string
		query Query
		want  []Grant
	}{
		{name: "subcommand program", query: bash("git status -s"), want: []Grant{{Tool: "bash", Pattern: "git status *"}}},
		{name: "plain program", query: bash("ls -la"), want: []Grant{{Tool: "bash", Pattern: "ls *"}}},
		{name: "bare subcommand", query: bash("go test"), want: []Grant{{Tool: "bash", Pattern: "go test *"}}},
		{name: "path to a program", query: bash("/usr/bin/git log -1"), want: []Grant{{Tool: "bash", Pattern: "/usr/bin/git log *"}}},
		{name: "every asked command, once each", query: bash("npm test && ls -la | ls; npm test"), want: []Grant{
			{Tool: "bash", Pattern: "npm test *"}, {Tool: "bash", Pattern: "ls *"},
		}},
		{name: "an option where the subcommand goes", query: bash("git -C sub push"), want: []Grant{{Tool: "bash", Pattern: "git -C sub push", Exact: true}}},
		{name: "a program with no subcommand given", query: bash("make"), want: []Grant{{Tool: "bash", Pattern: "make", Exact: true}}},
		{name: "a wrapper is granted exactly", query: bash("sudo apt install x"), want: []Grant{{Tool: "bash", Pattern: "sudo apt install x", Exact: true}}},
		{name: "a wrapper in capitals", query: bash("SUDO rm x"), want: []Grant{{Tool: "bash", Pattern: "SUDO rm x", Exact: true}}},
		{name: "find can run commands", query: bash("find . -name '*.go'"), want: []Grant{{Tool: "bash", Pattern: "find . -name *.go", Exact: true}}},
		{name: "a non-literal command", query: bash("$EDITOR notes"), want: []Grant{
			{Tool: "bash", Pattern: "$EDITOR notes", Exact: true},
		}},
		{name: "other tools get *", query: write("write_file", "a.go"), want: []Grant{{Tool: "write_file", Pattern: "*"}}},
		{name: "no subject", query: Query{Tool: "mcp__x__y"}, want: []Grant{{Tool: "mcp__x__y", Pattern: "*"}}},
		{name: "nothing for an allowed call", query: read("a.go"), want: nil},
		{name: "nothing for a denied call", query: read(".env"), want: nil},
		{name: "nothing for an unparsable line", query: bash("echo 'x"), want: nil},
		{name: "nothing when only a redirection asks", query: bash("echo hi > out"), want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.GrantFor(tt.query, nil); !slices.Equal(got, tt.want) {
				t.Fatalf("GrantFor = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestGrantForSkipsAllowedCommands(t *testing.T) {
	r := mustParse(t, `{"bash": {"git *": "allow"}}`)
	got := r.GrantFor(bash("git status && cargo build --release"), nil)
	want := []Grant{{Tool: "bash", Pattern: "cargo build *"}}
	if !slices.Equal(got, want) {
		t.Fatalf("GrantFor = %+v, want %+v", got, want)
	}
}

func TestGrantsLiftAsks(t *testing.T) {
	r := mustParse(t, `{"bash": {"*": "ask", "rm *": "deny"}}`)
	var g Grants
	q := bash("git status -s")
	if got := r.Check(q, &g).Decision; got != Ask {
		t.Fatalf("before the grant: %s, want ask", got)
	}
	g.Add(r.GrantFor(q, &g)...)

	tests := []struct {
		line string
		want Decision
	}{
		{"git status -s", Allow},
		{"git status", Allow},                // the bare stem of "git status *"
		{"git status --porcelain", Allow},    // the same subcommand
		{"git push --force", Ask},            // another subcommand
		{"git status; curl x | sh", Ask},     // other commands still need their own answer
		{"git status > out", Ask},            // a grant for a command does not cover a redirection
		{"PATH=/tmp/x git status", Ask},      // nor an assignment
		{"git status && rm -rf build", Deny}, // a grant never lifts a deny
	}
	for _, tt := range tests {
		got := r.Check(bash(tt.line), &g)
		if got.Decision != tt.want {
			t.Errorf("after granting git status *: %q = %s, want %s (%+v)", tt.line, got.Decision, tt.want, got)
		}
	}
	if got := r.Check(bash("git status -s"), &g); got.Source != SourceGrant || got.Pattern != "git status *" {
		t.Errorf("a lifted call reports source %s pattern %q, want the grant", got.Source, got.Pattern)
	}
	if got := r.Check(bash("git status > out"), &g); got.Cause != CauseRedirect || got.Source != SourceGrant {
		t.Errorf("a grant blocked by a redirection reports %+v, want the grant and the cause", got)
	}
}

func TestGrantNeverOverridesDeny(t *testing.T) {
	var g Grants
	g.Add(Grant{Tool: "read_file", Pattern: "*"}, Grant{Tool: "bash", Pattern: "*"})
	r := Default()
	if got := r.Check(read("config/.env"), &g).Decision; got != Deny {
		t.Errorf("read .env with a * grant = %s, want deny", got)
	}
	r = mustParse(t, `{"bash": {"rm *": "deny"}}`)
	if got := r.Check(bash("rm -rf x"), &g).Decision; got != Deny {
		t.Errorf("rm with a * grant = %s, want deny", got)
	}
	// A catch-all grant does cover what narrower grants do not.
	if got := r.Check(bash("echo x > out"), &g).Decision; got != Allow {
		t.Errorf("echo > out with a * grant = %s, want allow", got)
	}
}

func TestGrantsAreToolScopedAndExact(t *testing.T) {
	var g Grants
	g.Add(Grant{Tool: "write_file", Pattern: "*"}, Grant{Tool: "bash", Pattern: "sudo make *", Exact: true})
	r := Default()
	if got := r.Check(write("edit_file", "a.go"), &g).Decision; got != Ask {
		t.Errorf("a write_file grant lifted edit_file: %s", got)
	}
	if got := r.Check(write("write_file", "a.go"), &g).Decision; got != Allow {
		t.Errorf("write_file with its grant = %s, want allow", got)
	}
	if got := r.Check(bash("sudo make install"), &g).Decision; got != Ask {
		t.Errorf("an exact grant acted as a pattern: %s", got)
	}
	if got := r.Check(bash("sudo make *"), &g).Decision; got != Allow {
		t.Errorf("an exact grant did not match its own text: %s", got)
	}
	// A tool with no subject is lifted only by a * grant.
	g.Add(Grant{Tool: "bash_stop", Pattern: "1"})
	if got := r.Check(Query{Tool: "bash_stop", Default: Ask}, &g).Decision; got != Ask {
		t.Errorf("bash_stop lifted by a narrow grant: %s", got)
	}
}

func TestGrantsAddListDedupe(t *testing.T) {
	var g Grants
	a := Grant{Tool: "bash", Pattern: "ls *"}
	b := Grant{Tool: "write_file", Pattern: "*"}
	g.Add(a, b, a)
	g.Add(b)
	if got := g.List(); !slices.Equal(got, []Grant{a, b}) {
		t.Fatalf("List = %+v, want [a b] in order", got)
	}
	var nilGrants *Grants
	if nilGrants.List() != nil {
		t.Fatal("a nil *Grants lists something")
	}
	if got := Default().Check(bash("ls"), nilGrants).Decision; got != Ask {
		t.Fatalf("check with nil grants = %s", got)
	}
}

func TestGrantString(t *testing.T) {
	if got := (Grant{Tool: "bash", Pattern: "git status *"}).String(); got != `bash "git status *"` {
		t.Errorf("String = %s", got)
	}
	if got := (Grant{Tool: "bash", Pattern: "sudo make", Exact: true}).String(); got != `bash exactly "sudo make"` {
		t.Errorf("String = %s", got)
	}
}

// Subagents share their parent's grants: adding while checking must be
// safe (run with -race).
func TestGrantsConcurrent(t *testing.T) {
	var g Grants
	r := Default()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			g.Add(Grant{Tool: "bash", Pattern: string(rune('a'+i)) + " *"})
		}()
		go func() {
			defer wg.Done()
			_ = r.Check(bash("a x; b y"), &g)
			_ = g.List()
		}()
	}
	wg.Wait()
	if len(g.List()) != 8 {
		t.Fatalf("%d grants, want 8", len(g.List()))
	}
}
