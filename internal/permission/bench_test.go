package permission

import (
	"encoding/json"
	"testing"
)

// A bash call with three simple commands, all allowed by rules: the common
// case on every step of the loop.
func benchBash(b *testing.B, config string) {
	r, err := Parse(json.RawMessage(config))
	if err != nil {
		b.Fatal(err)
	}
	var g Grants
	g.Add(Grant{Tool: "bash", Pattern: "make test *"})
	q := Query{Tool: "bash", IsShell: true, Subjects: []string{"git status -s && go test ./... 2>&1 | ls -la"}, Default: Ask}
	if got := r.Check(q, &g).Decision; got != Allow {
		b.Fatalf("decision %s, want allow", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Check(q, &g)
	}
}

func BenchmarkCheckBashThreeCommands(b *testing.B) {
	benchBash(b, `{"bash": {"*": "ask", "git *": "allow", "go *": "allow", "ls *": "allow", "git push *": "ask"}}`)
}

// With a deny rule the wrapped commands are checked too (the effective commands).
func BenchmarkCheckBashThreeCommandsWithDeny(b *testing.B) {
	benchBash(b, `{"bash": {"*": "ask", "git *": "allow", "go *": "allow", "ls *": "allow", "git push *": "ask", "rm *": "deny"}}`)
}

func BenchmarkCheckReadFile(b *testing.B) {
	r := Default()
	q := read("internal/permission/check.go")
	if got := r.Check(q, nil).Decision; got != Allow {
		b.Fatalf("decision %s, want allow", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Check(q, nil)
	}
}
