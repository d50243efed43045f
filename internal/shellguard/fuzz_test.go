package shellguard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are the labelled corpora plus shapes that stress the parser
// and the recursion (quotes within quotes, here-documents, substitutions).
func fuzzSeeds(f *testing.F) {
	for _, name := range []string{"guard-corpus.jsonl", "guard-cases.jsonl"} {
		for _, c := range loadCorpusF(f, name) {
			f.Add(c.Cmd)
		}
	}
	for _, s := range []string{
		"", " ", "\n", ";", "|", "&&", "$(", "`", "'", `"`, "{", "}", "((", "<<", "<<<", "${",
		"sh -c 'sh -c \"sh -c ls\"'", "eval eval eval ls", "env -S 'env -S ls'",
		"cat <<A <<B\na\nA\nb\nB", "x=$(<f)", "a |& b", "coproc c { ls; }", "f() ( f | f & )",
		"echo {a..z}{1..9}", "$'\\x00'", "[[ $(rm -rf x) ]]", "((x = $(ls)))", "select x in a; do :; done",
		"find . -exec", "xargs -I", "sudo -u", "timeout", "git -C", "git push -o", "chmod", "dd of=",
	} {
		f.Add(s)
	}
}

// loadCorpusF reads a corpus for a fuzz target (loadCorpus needs a *testing.T).
func loadCorpusF(f *testing.F, name string) []corpusCase {
	f.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	var out []corpusCase
	for line := range strings.Lines(string(data)) {
		var c corpusCase
		if err := jsonUnmarshal(line, &c); err == nil {
			out = append(out, c)
		}
	}
	return out
}

var knownCategories = map[string]bool{
	CategoryRm: true, CategoryGitReset: true, CategoryGitClean: true, CategoryGitPush: true,
	CategoryGitBranch: true, CategorySQL: true, CategoryDisk: true, CategoryChmod: true,
	CategoryPower: true, CategoryForkBomb: true, CategoryPipeShell: true, CategoryOpaque: true,
}

// FuzzCheck: the guard never panics, always gives a well-formed verdict,
// and never passes a line that Effective cannot analyse.
func FuzzCheck(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		v := Check(src)
		if v != nil {
			if !knownCategories[v.Category] || v.Why == "" {
				t.Fatalf("malformed verdict %+v", v)
			}
			if r := v.Refusal(); !strings.HasPrefix(r, "Blocked by the guard plugin: refusing \"") || strings.Contains(r, "\n") {
				t.Fatalf("malformed refusal %q", r)
			}
		}
		if _, err := Effective(src); err != nil && v == nil {
			t.Fatalf("Effective cannot analyse %q (%v) but Check passes it", src, err)
		}
		for _, v := range CheckAll(src) {
			if !knownCategories[v.Category] {
				t.Fatalf("malformed verdict %+v", v)
			}
		}
	})
}

// FuzzEffective: Effective never panics; its error is always an
// *AnalysisError, and its commands always have a program.
func FuzzEffective(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		cmds, err := Effective(src)
		if err != nil {
			var ae *AnalysisError
			if !errors.As(err, &ae) || ae.Why == "" || cmds != nil {
				t.Fatalf("Effective(%q) = %v, %v", src, cmds, err)
			}
			return
		}
		for _, c := range cmds {
			if len(c.Args) == 0 {
				t.Fatalf("Effective(%q) has an empty command: %+v", src, cmds)
			}
		}
	})
}

// FuzzAnalyze: Analyze never panics and its result holds together: one
// parse per script, an Effective failure always refused by the guard,
// every git call pointing at its effective command, every shell alias at
// one of the scripts. Its time is bounded by the guard's own limits
// (maxSource, the budget, maxDepth), which the hostile inputs exercise.
func FuzzAnalyze(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{
		"git -c alias.r='reset --hard' r", "git -c alias.a=b -c alias.b=a a", "git -c alias.x='!sh -c' x \"$y\"",
		"git --config-env=alias.r=V r", `git -c "$kv" r`, "git -c alias.x='!git -c alias.y=\"!rm -rf z\" y' x",
		"X=1 export A=$(b) > f 2>&1; for i in a; do :; done",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		a := Analyze(src)
		if a.Source() != src {
			t.Fatalf("source %q", a.Source())
		}
		if a.ParseErr() == nil && a.File() == nil || a.ParseErr() != nil && a.File() != nil {
			t.Fatalf("parse %v with error %v", a.File(), a.ParseErr())
		}
		if len(src) <= maxSource && a.Parses() != 1+len(a.Scripts()) {
			t.Fatalf("%d parses for %d nested scripts", a.Parses(), len(a.Scripts()))
		}
		cmds, err := a.Effective()
		if err != nil && a.Verdict() == nil {
			t.Fatalf("Effective cannot analyse %q (%v) but the guard passes it", src, err)
		}
		for _, v := range a.Findings() {
			if !knownCategories[v.Category] || v.Why == "" {
				t.Fatalf("malformed finding %+v", v)
			}
		}
		for _, g := range a.Git() {
			if err == nil && (g.Index >= len(cmds) || cmds[g.Index].String() != g.Command.String()) {
				t.Fatalf("git call %+v does not point at its command in %v", g, cmds)
			}
			if sh, ok := g.Alias.(ShellAlias); ok && (sh.Script < -1 || sh.Script >= len(a.Scripts())) {
				t.Fatalf("shell alias %+v points outside the %d scripts", sh, len(a.Scripts()))
			}
			if sh, ok := g.Alias.(ShellAlias); ok && sh.Script == -1 && a.Verdict() == nil {
				t.Fatalf("a shell alias that was not read passes: %q", src)
			}
		}
	})
}
