package permission

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

func TestBuildRefusesAKeyTwice(t *testing.T) {
	_, err := Build([]Entry{{Class: ClassShell, Rules: []Rule{}}, {Class: ClassShell, Rules: []Rule{}}})
	if err == nil || !strings.Contains(err.Error(), "class shell appears twice") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Build([]Entry{{Key: "web_fetch", Rules: []Rule{{Pattern: "*", Decision: "alow"}}}}); err == nil {
		t.Fatal("a misspelt decision was accepted")
	}
}

// A class entry applies by what a tool is; for a reading tool without
// paths only its catch-all rules count, and with none the default stays.
func TestClassEntries(t *testing.T) {
	r, err := Build([]Entry{
		{Class: ClassReads, Rules: []Rule{{Pattern: "secrets/*", Decision: Deny, Origin: "o"}}},
		{Class: ClassWrites, Rules: []Rule{{Pattern: "*", Decision: Deny}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	read := Query{Tool: "read_file", Subjects: []string{"secrets/a"}, Paths: true, Default: Allow, Effect: tool.Reads}
	if res := r.Check(read, nil); res.Decision != Deny || res.Origin != "o" || res.Reason != "Refused by the permission rule o." {
		t.Errorf("read of secrets/a = %+v", res)
	}
	grep := Query{Tool: "grep", Subjects: []string{"secrets/a"}, Default: Allow, Effect: tool.Reads}
	if res := r.Check(grep, nil); res.Decision != Allow || res.Source != SourceFallback {
		t.Errorf("grep's pattern was judged by a path rule: %+v", res)
	}
	write := Query{Tool: "move_file", Subjects: []string{"a", "b"}, Paths: true, Default: Ask, Effect: tool.Writes}
	if res := r.Check(write, nil); res.Decision != Deny {
		t.Errorf("write = %+v", res)
	}
	bash := Query{Tool: "bash", Subjects: []string{"ls"}, IsShell: true, Default: Ask, Effect: tool.Runs}
	if res := r.Check(bash, nil); res.Source != SourceFallback {
		t.Errorf("bash took a class entry it is not of: %+v", res)
	}
}
