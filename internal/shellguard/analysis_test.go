package shellguard

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Analyze parses the line once and each script it hands to a shell once:
// the count it keeps is 1 + the number of nested scripts, and the scripts
// are the ones expected, however many consumers read the result.
func TestAnalyzeParsesEachScriptOnce(t *testing.T) {
	tests := []struct {
		src     string
		scripts []string // the nested scripts' sources, in order
	}{
		{"ls -la | grep foo", nil},
		{"echo 'unterminated", nil},
		{"sh -c 'bash -c \"ls\"'", []string{`bash -c "ls"`, "ls"}},
		{"eval 'git status' && sudo sh -c 'rm x'", []string{"git status", "rm x"}},
		{"bash <<'EOF'\ngit push -f\nEOF", []string{"git push -f\n"}},
		{"echo 'git push --force' | bash", []string{"git push --force"}},
		{`sh -c "rm $x"`, []string{"rm $x"}}, // the approximation
		{"git -c alias.x='!rm -rf y' -c alias.z='!ls' x", []string{"ls", "rm -rf y"}},
		{"env -S 'sh -c ls' && find . -exec sh -c 'echo {}' \\;", []string{"ls", "echo {}"}},
		{"sh -c 'echo \"unterminated'", []string{`echo "unterminated`}},
	}
	for _, tt := range tests {
		a := Analyze(tt.src)
		var got []string
		for _, s := range a.Scripts() {
			got = append(got, s.Source)
		}
		if !slices.Equal(got, tt.scripts) {
			t.Errorf("%q: scripts %q, want %q", tt.src, got, tt.scripts)
		}
		if a.Parses() != 1+len(a.Scripts()) {
			t.Errorf("%q: %d parses for the line and %d nested scripts", tt.src, a.Parses(), len(a.Scripts()))
		}
		// Reading everything consumers read parses nothing more.
		_, _ = a.Effective()
		_, _, _, _, _ = a.Commands(), a.Findings(), a.Verdict(), a.Git(), a.Redirects()
		if a.Parses() != 1+len(tt.scripts) {
			t.Errorf("%q: %d parses after reading the analysis", tt.src, a.Parses())
		}
	}
	if a := Analyze(strings.Repeat("x", maxSource+1)); a.Parses() != 0 || a.ParseErr() == nil || a.Verdict() == nil {
		t.Errorf("a line over the size limit: %d parses, error %v, verdict %v", a.Parses(), a.ParseErr(), a.Verdict())
	}
}

func TestAnalysisListsRedirectsAndAssignments(t *testing.T) {
	a := Analyze(`X=1 FOO="$HOME/x" make > "$OUT/.env" 2>&1 <in >&log 2>/dev/null; export A=b C; declare -x; for i in 1 "$j"; do :; done; cat <<EOF
body
EOF`)
	wantRedirects := []Redirect{
		{Op: ">", Target: "$OUT/.env", Writes: true},
		{Op: ">&", Fd: "2", Target: "1", Literal: true},
		{Op: "<", Target: "in", Literal: true},
		{Op: ">&", Target: "log", Literal: true, Writes: true},
		{Op: ">", Fd: "2", Target: "/dev/null", Literal: true, Writes: true},
		{Op: "<<", Target: "EOF", Literal: true},
	}
	if got := a.Redirects(); !reflect.DeepEqual(got, wantRedirects) {
		t.Errorf("redirects\n got %+v\nwant %+v", got, wantRedirects)
	}
	wantAssignments := []Assignment{
		{Name: "X", Value: "1", Literal: true},
		{Name: "FOO", Value: "$HOME/x"},
		{Name: "A", Value: "b", Literal: true, By: "export"},
		{Name: "C", Literal: true, By: "export"},
		{Name: "i", Value: "1", Literal: true, By: "for"},
		{Name: "i", Value: "$j", By: "for"},
	}
	if got := a.Assignments(); !reflect.DeepEqual(got, wantAssignments) {
		t.Errorf("assignments\n got %+v\nwant %+v", got, wantAssignments)
	}
	// A nested script keeps its own.
	a = Analyze("sudo sh -c 'echo hi > notes.txt'")
	if s := a.Scripts(); len(s) != 1 || !slices.Equal(s[0].Via, []string{"sudo", "sh"}) ||
		!reflect.DeepEqual(s[0].Redirects, []Redirect{{Op: ">", Target: "notes.txt", Literal: true, Writes: true}}) ||
		len(a.Redirects()) != 0 {
		t.Errorf("nested script %+v, line redirects %+v", s, a.Redirects())
	}
}

// A line the analysis gives up on says so: the guard refuses it, and its
// lists end at the limit, which callers must not read as the whole line.
func TestAnalysisSaysWhenItStopped(t *testing.T) {
	src := "ls -la; " + strings.Repeat("( ", maxNesting+10) + "ls" + strings.Repeat(" )", maxNesting+10) + "; rm -rf x"
	a := Analyze(src)
	if v := a.Verdict(); v == nil || v.Why != "too deeply nested to check" || !a.Stopped() {
		t.Fatalf("verdict %+v (stopped %v), want the nesting limit", v, a.Stopped())
	}
	if _, err := a.Effective(); err == nil {
		t.Error("Effective succeeds on a line the analysis did not finish")
	}
	if cmds := a.Commands(); len(cmds) != 1 || cmds[0].String() != "ls -la" {
		t.Errorf("commands %v, want those before the limit", cmds)
	}
	if a := Analyze("ls -la; rm -rf x"); a.Stopped() || len(a.Commands()) != 2 {
		t.Errorf("a plain line: stopped %v, commands %v", a.Stopped(), a.Commands())
	}
}

// One analysis is read by the guard, the plugins and the rules at once.
func TestAnalysisIsSafeToReadConcurrently(t *testing.T) {
	a := Analyze("sudo git -c alias.p='push -f' p > out; sh -c 'eval ls' && X=1 rm -rf y")
	want := snapshot(a)
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Go(func() { results[i] = snapshot(a) })
	}
	wg.Wait()
	for i, got := range results {
		if got != want {
			t.Errorf("reader %d saw %s, want %s", i, got, want)
		}
	}
}

// snapshot renders everything an Analysis tells its readers.
func snapshot(a *Analysis) string {
	cmds, err := a.Effective()
	return fmt.Sprintf("%+v|%+v|%v|%+v|%+v|%+v|%+v|%+v|%+v|%d",
		a.Commands(), cmds, err, a.Redirects(), a.Assignments(), a.Findings(), a.Verdict(), a.Git(), a.Scripts(), a.Parses())
}

// The analyses handed on are used only for their own lines: a missing
// one or one of another line is made again, and a full set is returned
// as it is.
func TestAnalyzeLinesReusesOnlyAnalysesOfTheSameLine(t *testing.T) {
	ls, rm := Analyze("ls"), Analyze("rm -rf build")
	full := []*Analysis{ls, rm}
	if got := AnalyzeLines([]string{"ls", "rm -rf build"}, full); &got[0] != &full[0] {
		t.Error("a full set of analyses was copied rather than returned")
	}
	got := AnalyzeLines([]string{"rm -rf build", "ls", "pwd"}, []*Analysis{ls, ls})
	if len(got) != 3 || got[0].Source() != "rm -rf build" || got[1] != ls || got[2].Source() != "pwd" {
		t.Fatalf("got the analyses of %v", sources(got))
	}
	if got := AnalyzeLines(nil, nil); len(got) != 0 {
		t.Fatalf("no lines, %d analyses", len(got))
	}
}

func sources(as []*Analysis) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Source()
	}
	return out
}
