//go:build !race

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// TestFiftyStepSessionMemory runs a 50-step headless session of the real
// binary against the loopback server and checks its peak RSS. The target is
// 45 MB and is met (docs/performance.md, "Fifth pass"): this machine
// measures 42.5-43.9 MB for copies of one build (9 runs), 45.4-46.5
// before it. This test, with a binary as the linker wrote it, read 43.8
// and 46.4 MB in two runs (47.9 before, and up to 51 MB best of three at
// other times): the figure depends on how the binary's page cache was
// made (a fresh build or a copy, and the machine's load).
// Most of the peak is the binary's own clean file pages, which is why
// linking text/template (see TestBinaryKeepsDeadCodeElimination) cost
// 14 MB here; the Go heap's pages were about 11 MB before the fifth
// pass. How many of those file pages a fault maps depends on the
// machine's page cache and file system, and the CI machine has read
// about 3 MB more than this one. (Figures taken before peakRSSMain, up to
// 70 MB on a loaded machine, were partly this test process's own size,
// which the kernel folds into a vforked child's maxrss.) So the test
// fails at 58 MB: 7 MB above this machine's highest figure, below what a
// real regression costs (the template engine back is 14 MB more). Each
// step reads a file, so the history and the requests grow.
func TestFiftyStepSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a 50-step session")
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "big.txt"), []byte(strings.Repeat("a line of text in a file being read\n", 1500)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Measure the real binary, not the test binary with its extra code.
	bin := filepath.Join(t.TempDir(), "shiro")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The best of three runs: page-cache and scheduling noise only ever
	// add to a peak, so the minimum is the measure of the program itself.
	best := int64(0)
	for run := 0; run < 3; run++ {
		rss := fiftyStepPeakRSS(t, bin, work)
		t.Logf("run %d: peak RSS %.1f MB", run+1, float64(rss)/1024)
		if best == 0 || rss < best {
			best = rss
		}
	}
	t.Logf("50-step session: peak RSS %.1f MB (best of 3)", float64(best)/1024)
	if best > 58*1024 {
		t.Fatalf("peak RSS %.1f MB; the target is 45 MB, and a regression shows past 58 MB", float64(best)/1024)
	}
}

// fiftyStepPeakRSS runs one 50-step session and returns its peak RSS in KiB.
func fiftyStepPeakRSS(t *testing.T, bin, work string) int64 {
	t.Helper()
	var replies []llmtest.Reply
	for i := 0; i < 49; i++ {
		replies = append(replies, llmtest.Reply{Text: "reading", ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "read_file", Input: fmt.Sprintf(`{"path":"big.txt","offset":%d}`, i+1)}},
			Usage: llmtest.Usage{InputTokens: 1000, OutputTokens: 20}})
	}
	replies = append(replies, llmtest.Reply{Text: "done", Usage: llmtest.Usage{InputTokens: 1000, OutputTokens: 5}})
	srv := llmtest.New(t, replies...)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Through peakrss (see peakRSSMain), so that the figure is the
	// binary's and not this test process's.
	cmd := &exec.Cmd{Path: self, Args: []string{"peakrss", bin, "-p", "read it fifty times", "--json", "--agent", "deep",
		"--provider", "custom-anthropic", "--base-url", srv.URL, "--model", "m"}}
	cmd.Dir = work
	// Automatic compaction is off: it would shrink the history (and spend
	// replies on summaries), and the measure is of a history that grows.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".shiro-neko"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".shiro-neko", "config.json"), []byte(`{"compactAt": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "SHIRO_HOME="+home, "SHIRO_API_KEY=test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("session failed: %v\n%s", err, tail(out))
	}
	if n := strings.Count(string(out), `"type":"tool-result"`); n != 49 {
		t.Fatalf("%d tool results, want 49\n%s", n, tail(out))
	}
	at := bytes.LastIndex(out, []byte(peakRSSPrefix))
	if at < 0 {
		t.Fatalf("peakrss reported no figure\n%s", tail(out))
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(out[at+len(peakRSSPrefix):])), 10, 64)
	if err != nil {
		t.Fatalf("peakrss: %v", err)
	}
	return kib
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
