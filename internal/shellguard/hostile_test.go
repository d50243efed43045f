package shellguard

import (
	"strings"
	"testing"
)

// The guard's work must stay linear in the size of what it parses: at most
// hostileFactor times the allocations of parsing the input once, plus a
// constant for what a short line may expand to (brace words, eval). It is
// measured in allocations, not time, so the test means the same on a
// loaded machine; an exponential blow-up through eval or sh -c nesting
// would exceed it by orders of magnitude. BenchmarkHostileInputs gives the
// time.
const (
	hostileFactor = 12
	hostileSlack  = 20000
)

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
		"nested assignments":        strings.Repeat("x=$(", 5000) + "ls" + strings.Repeat(")", 5000),
		"nested redirections":       strings.Repeat("a > $(", 5000) + "ls" + strings.Repeat(")", 5000),
		"nested git aliases":        "git" + strings.Repeat(" -c alias.a='a'", 5000) + " a",
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
			parse := testing.AllocsPerRun(1, func() { _, _ = Parse(src) })
			var a *Analysis
			analyze := testing.AllocsPerRun(1, func() { a = Analyze(src) })
			v := a.Verdict()
			_, err := a.Effective()
			verdict := "pass"
			if v != nil {
				verdict = v.Category + ": " + v.Why
			}
			t.Logf("%d bytes: parse %.0f allocs, Analyze %.0f; %s", len(src), parse, analyze, verdict)
			if limit := hostileFactor*parse + hostileSlack; analyze > limit {
				t.Errorf("too much work: Analyze made %.0f allocations, limit %.0f", analyze, limit)
			}
			if err != nil && v == nil {
				t.Errorf("Effective cannot analyse it (%s) but Check passes it", shorten(err.Error()))
			}
		})
	}
}

// BenchmarkHostileInputs is the time the guard takes on each hostile
// shape, per byte of input.
func BenchmarkHostileInputs(b *testing.B) {
	for name, src := range hostileInputs() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				_ = Analyze(src)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(src)+1), "ns/byte")
		})
	}
}
