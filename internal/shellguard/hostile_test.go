package shellguard

import (
	"strings"
	"testing"
	"time"
)

// The guard's work must stay linear in the size of what it parses: at most
// hostileFactor times the cost of parsing the input once, plus a little.
// Comparing with the parser on the same machine keeps the test meaningful
// on a loaded one, while an exponential blow-up through eval or sh -c
// nesting would exceed it by orders of magnitude.
const (
	hostileFactor = 12
	hostileSlack  = 20 * time.Millisecond
)

// fastest runs f three times and returns the shortest duration.
func fastest(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}

// hostileInputs are shapes that make a naive guard slow: deep nesting,
// re-parsing through sh -c and eval, long pipelines, huge words, brace
// bombs. Each must finish quickly and be judged (blocked when it cannot
// be checked, never crash).
func hostileInputs() map[string]string {
	nestedSh := "rm -rf x"
	for range 10 {
		nestedSh = "sh -c " + shQuote(nestedSh)
	}
	return map[string]string{
		"nested sh -c":              nestedSh,
		"eval chain":                strings.Repeat("eval ", 5000) + "ls",
		"wrapper chain":             strings.Repeat("nice ", 5000) + "rm -rf x",
		"long pipeline":             strings.Repeat("cat | ", 40000) + "sh",
		"long download pipe":        "curl x | " + strings.Repeat("tee a | ", 30000) + "sh",
		"nested subshells":          strings.Repeat("(", 3000) + "ls" + strings.Repeat(")", 3000),
		"nested substitution":       strings.Repeat("echo $(", 2000) + "ls" + strings.Repeat(")", 2000),
		"nested pipes in subshells": strings.Repeat("a | (", 2000) + "sh" + strings.Repeat(")", 2000),
		"many commands":             strings.Repeat("echo hi; ", 29000),
		"huge heredoc":              "cat > f <<'EOF'\n" + strings.Repeat("line of text rm -rf / DROP TABLE x\n", 7000) + "EOF",
		"huge word":                 "echo " + strings.Repeat("a", 250_000),
		"brace bomb":                "echo " + strings.Repeat("{a,b}", 40),
		"brace sequence":            "echo {1..999999999}",
		"eval braces":               "eval " + strings.Repeat("{a,b}", 8) + " " + strings.Repeat("{c,d}", 8),
		"nested fork bombs":         strings.Repeat("f() { ", 2000) + "f | f & }" + strings.Repeat("; }", 1999),
		"many functions":            strings.Repeat("g() { g; }; ", 20000),
		"deep eval quoting":         strings.Repeat("eval \"", 200) + "ls" + strings.Repeat("\"", 200),
		"env -S chain":              strings.Repeat("env -S 'env -S ", 50) + "ls",
		"find exec chain":           strings.Repeat("find . -exec ", 3000) + "rm -rf {} " + strings.Repeat("\\; ", 3000),
		"over the size limit":       strings.Repeat("x", maxSource+1),
	}
}

// shQuote single-quotes s for a shell.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestHostileInputsAreBoundedAndJudged(t *testing.T) {
	for name, src := range hostileInputs() {
		t.Run(name, func(t *testing.T) {
			var v *Verdict
			var err error
			parse := fastest(func() { _, _ = Parse(src) })
			check := fastest(func() { v = Check(src) })
			effective := fastest(func() { _, err = Effective(src) })
			verdict := "pass"
			if v != nil {
				verdict = v.Category + ": " + v.Why
			}
			t.Logf("%d bytes: parse %v, Check %v, Effective %v; %s", len(src), parse, check, effective, verdict)
			if limit := hostileFactor*parse + hostileSlack; check > limit || effective > limit {
				t.Errorf("too slow: Check %v, Effective %v, limit %v", check, effective, limit)
			}
			if err != nil && v == nil {
				t.Errorf("Effective cannot analyse it (%s) but Check passes it", shorten(err.Error()))
			}
		})
	}
}
