package search

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// Grep over the Go source tree, three ways per pattern:
//
//   - rg-direct: ripgrep run by itself with the same arguments our rg path
//     gives it (same ignore flags, --max-count 200 per file, same column
//     limit), its output read and thrown away: the floor for any wrapper;
//   - rg-tool: our rg path (process, parsing, the ignore re-check of each
//     hit, the sorted top-200);
//   - go-walker: our Go walker, the fallback when rg is absent.
//
// All three do the whole search: grep sorts hits by path and reports the
// total, so it cannot stop at the 200th hit the way `rg | head` would.
//
// Run: go test -run '^$' -bench GrepGoroot ./internal/tools/search/
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT failed:", err)
	}
	root := strings.TrimSpace(string(out)) + "/src"
	env, err := workspace.New(root)
	if err != nil {
		b.Skip(err)
	}
	rg, _ := exec.LookPath("rg")
	patterns := []struct{ name, pattern string }{
		{"literal", "func main"},
		{"regex", `errors\.New\(".*not`},
		{"rare", "ZZZ_no_such_identifier"},
	}
	for _, p := range patterns {
		q, err := newGrepQuery(env, &grepInput{Pattern: p.pattern})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p.name+"/rg-direct", func(b *testing.B) {
			if rg == "" {
				b.Skip("rg not installed")
			}
			for b.Loop() {
				cmd := exec.CommandContext(context.Background(), rg, rgArgs(q)...)
				cmd.Dir = env.Root
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(p.name+"/rg-tool", func(b *testing.B) {
			if rg == "" {
				b.Skip("rg not installed")
			}
			e := *env
			e.Ripgrep = rg
			var total int
			for b.Loop() {
				col, err := runGrep(context.Background(), &e, q)
				if err != nil {
					b.Fatal(err)
				}
				total = col.total
			}
			b.ReportMetric(float64(total), "hits")
		})
		b.Run(p.name+"/go-walker", func(b *testing.B) {
			e := *env
			e.Ripgrep = ""
			var total int
			for b.Loop() {
				col, err := runGrep(context.Background(), &e, q)
				if err != nil {
					b.Fatal(err)
				}
				total = col.total
			}
			b.ReportMetric(float64(total), "hits")
		})
	}
}

// BenchmarkWalkGoroot measures the walker alone: the floor under glob,
// list_dir and the Go grep.
func BenchmarkWalkGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT failed:", err)
	}
	env, err := workspace.New(strings.TrimSpace(string(out)) + "/src")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		n := 0
		err := workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{}, func(string, fs.DirEntry) error {
			n++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestGrepSpeedReport prints interleaved timings of the three ways to grep
// the Go source tree, which are fairer than separate benchmarks on a busy
// machine: each round runs every variant once, and medians are compared.
// It runs only when SHIRO_GREP_REPORT=1.
func TestGrepSpeedReport(t *testing.T) {
	if os.Getenv("SHIRO_GREP_REPORT") != "1" {
		t.Skip("set SHIRO_GREP_REPORT=1 to print the grep speed report")
	}
	rg := ripgrep(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	env, err := workspace.New(strings.TrimSpace(string(out)) + "/src")
	if err != nil {
		t.Fatal(err)
	}
	rounds := 9
	if n, err := strconv.Atoi(os.Getenv("SHIRO_GREP_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	for _, c := range []struct {
		pattern    string
		ignoreCase bool
	}{
		{"func main", false},
		{`errors\.New\(".*not`, false},
		{"ZZZ_no_such_identifier", false},
		{"func main", true},
	} {
		pattern := c.pattern
		q, err := newGrepQuery(env, &grepInput{Pattern: pattern, IgnoreCase: c.ignoreCase})
		if err != nil {
			t.Fatal(err)
		}
		variants := []struct {
			name string
			run  func()
		}{
			{"rg-direct", func() {
				cmd := exec.Command(rg, rgArgs(q)...)
				cmd.Dir = env.Root
				cmd.Stdout = io.Discard
				_ = cmd.Run()
			}},
			{"rg-tool", func() {
				e := *env
				e.Ripgrep = rg
				if _, err := runGrep(context.Background(), &e, q); err != nil {
					t.Fatal(err)
				}
			}},
			{"go-walker", func() {
				e := *env
				e.Ripgrep = ""
				if _, err := runGrep(context.Background(), &e, q); err != nil {
					t.Fatal(err)
				}
			}},
		}
		times := make([][]time.Duration, len(variants))
		for range rounds {
			for i, v := range variants {
				start := time.Now()
				v.run()
				times[i] = append(times[i], time.Since(start))
			}
		}
		med := make([]time.Duration, len(variants))
		best := make([]time.Duration, len(variants))
		for i := range variants {
			slices.Sort(times[i])
			med[i] = times[i][len(times[i])/2]
			best[i] = times[i][0]
		}
		if c.ignoreCase {
			pattern += " (-i)"
		}
		t.Logf("%-28q median: rg-direct %6.1fms  rg-tool %6.1fms (%.2fx)  go-walker %6.1fms (%.2fx)",
			pattern, ms(med[0]), ms(med[1]), float64(med[1])/float64(med[0]), ms(med[2]), float64(med[2])/float64(med[0]))
		t.Logf("%-28q best:   rg-direct %6.1fms  rg-tool %6.1fms (%.2fx)  go-walker %6.1fms (%.2fx)",
			"", ms(best[0]), ms(best[1]), float64(best[1])/float64(best[0]), ms(best[2]), float64(best[2])/float64(best[0]))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkGrepPrepare measures what the contract adds before a search
// runs: decoding the call against the derived schema and the check that
// compiles the pattern and reads the include.
func BenchmarkGrepPrepare(b *testing.B) {
	g := family.Named(b, &workspace.Env{Root: b.TempDir()}, "grep")
	input := []byte(`{"pattern":"errors\\.New\\(\".*not","include":"src/**/*.go","ignoreCase":true}`)
	g.Info() // derive the schema outside the loop, as the first request does
	for b.Loop() {
		if _, err := g.Prepare(input); err != nil {
			b.Fatal(err)
		}
	}
}
