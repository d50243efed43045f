//go:build !race

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// BenchmarkSessionCPU measures what one model step costs the shiro process
// itself as the history grows: the real binary runs a stream-json session
// against the loopback fake (which runs in this test process, so its work
// is not counted), and the CPU time comes from the child's rusage.
//
// Each turn is two steps: the model reads a 2 KB file, then answers. The
// fixed cost of a run (start-up, the first request) is taken out by also
// running a one-turn session, so
//
//	cpu-ms/step@N = (CPU of an N-step session - CPU of a 2-step session) / (N - 2)
//
// is the average cost of a step over a session of N steps. Flat cost per
// step means cpu-ms/step@200 close to cpu-ms/step@10.
//
//	go test ./cmd/shiro -run XXX -bench SessionCPU -benchtime 3x
//	SHIRO_BENCH_BIN=/tmp/shiro-before go test ./cmd/shiro -run XXX -bench SessionCPU -benchtime 3x
func BenchmarkSessionCPU(b *testing.B) {
	bin := buildBinary(b)
	for _, preset := range []string{"custom-anthropic", "custom-openai"} {
		b.Run(preset, func(b *testing.B) {
			var base, at10, at200 time.Duration
			for b.Loop() {
				base += sessionCPU(b, bin, preset, 2, readNotes)
				at10 += sessionCPU(b, bin, preset, 10, readNotes)
				at200 += sessionCPU(b, bin, preset, 200, readNotes)
			}
			n := time.Duration(b.N)
			per10 := perStep(at10/n, base/n, 10)
			per200 := perStep(at200/n, base/n, 200)
			b.ReportMetric(per10, "cpu-ms/step@10")
			b.ReportMetric(per200, "cpu-ms/step@200")
			b.ReportMetric(per200/per10, "ratio-200/10")
			b.ReportMetric(float64((base/n).Microseconds())/1000, "cpu-ms/2-step-run")
		})
	}
}

func perStep(session, base time.Duration, steps int) float64 {
	return float64((session - base).Microseconds()) / 1000 / float64(steps-2)
}

// BenchmarkStepKindCPU compares what a step that runs a command costs
// with one that reads a file, in sessions of 60 steps, helper and all
// (the child's rusage counts the helpers it waited for):
//
//	ratio = (CPU of 60 steps running `true` - base) / (CPU of 60 steps reading a file - base)
//
// where base is a 2-step session reading the file. Issue 27 asks for a
// ratio of 1.1 or less. The sessions run with the sandbox as configured
// (workspace-write) and, in "sandbox-off", with --sandbox off, where the
// helper only supervises.
func BenchmarkStepKindCPU(b *testing.B) {
	bin := buildBinary(b)
	runTrue := toolCall{name: "bash", input: `{"command":"true"}`}
	runExternal := toolCall{name: "bash", input: `{"command":"/bin/true"}`}
	for _, mode := range []struct {
		name  string
		flags []string
	}{{"sandboxed", nil}, {"sandbox-off", []string{"--sandbox", "off"}}} {
		b.Run(mode.name, func(b *testing.B) {
			var base, reads, commands, external time.Duration
			for b.Loop() {
				base += sessionCPU(b, bin, "custom-anthropic", 2, readNotes, mode.flags...)
				reads += sessionCPU(b, bin, "custom-anthropic", 60, readNotes, mode.flags...)
				commands += sessionCPU(b, bin, "custom-anthropic", 60, runTrue, mode.flags...)
				external += sessionCPU(b, bin, "custom-anthropic", 60, runExternal, mode.flags...)
			}
			n := time.Duration(b.N)
			perRead, perCommand := perStep(reads/n, base/n, 60), perStep(commands/n, base/n, 60)
			b.ReportMetric(perRead, "cpu-ms/read-step")
			b.ReportMetric(perCommand, "cpu-ms/bash-step")
			b.ReportMetric(perCommand/perRead, "ratio-bash/read")
			// external: a program, not a builtin (the step of `ls` or `git status`).
			perExternal := perStep(external/n, base/n, 60)
			b.ReportMetric(perExternal, "cpu-ms/external-step")
			b.ReportMetric(perExternal/perRead, "ratio-external/read")
		})
	}
}

// toolCall is the call each turn's first step makes.
type toolCall struct{ name, input string }

var readNotes = toolCall{name: "read_file", input: `{"path":"notes.txt"}`}

// buildBinary builds the shiro under test, with the lean sandbox helper
// beside it as `go install ./cmd/...` puts it, or returns
// $SHIRO_BENCH_BIN: a binary built from another commit, for before/after
// figures.
func buildBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("SHIRO_BENCH_BIN"); bin != "" {
		return bin
	}
	dir := b.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", ".", "../shiro-sandbox").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "shiro")
}

// sessionCPU runs a session of steps model calls (steps/2 turns) and
// returns the user+system CPU time the shiro process used; flags are
// added to shiro's.
func sessionCPU(b *testing.B, bin, preset string, steps int, call toolCall, flags ...string) time.Duration {
	b.Helper()
	return sessionIn(b, bin, preset, b.TempDir(), b.TempDir(), steps, call, flags...)
}

// sessionIn is sessionCPU with the shiro home and the workspace given, so
// that a later run can continue the session.
func sessionIn(b *testing.B, bin, preset, home, work string, steps int, call toolCall, flags ...string) time.Duration {
	b.Helper()
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte(strings.Repeat("a line of notes about the code\n", 66)), 0o644); err != nil {
		b.Fatal(err)
	}
	// The background learner asks the model too, which would take the
	// scripted replies out of the session's order (and its CPU is not a
	// step's).
	if err := os.MkdirAll(filepath.Join(home, ".shiro-neko"), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".shiro-neko", "config.json"), []byte(`{"autoLearn": false}`), 0o600); err != nil {
		b.Fatal(err)
	}
	turns := steps / 2
	var replies []llmtest.Reply
	var input strings.Builder
	for i := range turns {
		replies = append(replies,
			llmtest.Reply{Text: "Reading the notes.", ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: call.name, Input: call.input}},
				Usage: llmtest.Usage{InputTokens: 100, CacheReadTokens: 1000, OutputTokens: 20}},
			llmtest.Reply{Text: fmt.Sprintf("Turn %d done: the notes say nothing new.", i),
				Usage: llmtest.Usage{InputTokens: 100, CacheReadTokens: 1000, OutputTokens: 12}},
		)
		fmt.Fprintf(&input, `{"type":"user","text":"turn %d: read notes.txt again"}`+"\n", i)
	}
	srv := llmtest.New(b, replies...)
	args := append([]string{"-p", "--input-format", "stream-json", "--json", "--yolo",
		"--provider", preset, "--base-url", srv.URL, "--model", "m"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	cmd.Stdin = strings.NewReader(input.String())
	cmd.Env = append(withoutGOGC(os.Environ()), "SHIRO_HOME="+home, "SHIRO_API_KEY=test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("session failed: %v\n%s", err, tail(out))
	}
	if n := strings.Count(string(out), `"type":"tool-result"`); n != turns {
		b.Fatalf("%d tool results, want %d\n%s", n, turns, tail(out))
	}
	if left := srv.Remaining(); left != 0 {
		b.Fatalf("%d scripted replies unused", left)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// withoutGOGC drops GOGC from env, so that the run uses shiro's own
// setting for headless sessions.
func withoutGOGC(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOGC=") {
			out = append(out, kv)
		}
	}
	return out
}

// BenchmarkResumeCPU compares continuing a long session for one step with
// a fresh one-step session: a 200-step session is recorded first (its CPU
// is not counted), then `shiro -c -p` asks one more question, answered in
// one step, and so does a fresh `shiro -p` in another workspace. Issue 27
// asks for a ratio of 1.3 or less: resuming should cost what the resumed
// step needs, not what the session's length costs.
//
//	go test ./cmd/shiro -run XXX -bench ResumeCPU -benchtime 5x
func BenchmarkResumeCPU(b *testing.B) {
	bin := buildBinary(b)
	for _, preset := range []string{"custom-anthropic", "custom-openai"} {
		b.Run(preset, func(b *testing.B) {
			var fresh, resumed time.Duration
			for b.Loop() {
				home, work := b.TempDir(), b.TempDir()
				sessionIn(b, bin, preset, home, work, 200, readNotes)
				resumed += oneStepCPU(b, bin, preset, home, work, "-c")
				fresh += oneStepCPU(b, bin, preset, b.TempDir(), b.TempDir())
			}
			n := time.Duration(b.N)
			b.ReportMetric(float64((fresh/n).Microseconds())/1000, "cpu-ms/fresh")
			b.ReportMetric(float64((resumed/n).Microseconds())/1000, "cpu-ms/resumed@200")
			b.ReportMetric(float64(resumed)/float64(fresh), "ratio-resumed/fresh")
		})
	}
}

// oneStepCPU runs `shiro -p` (with extra flags such as -c) for one step
// answered in text and returns the CPU the process used.
func oneStepCPU(b *testing.B, bin, preset, home, work string, extra ...string) time.Duration {
	b.Helper()
	srv := llmtest.New(b, llmtest.Reply{Text: "Nothing new in the notes.",
		Usage: llmtest.Usage{InputTokens: 100, CacheReadTokens: 1000, OutputTokens: 8}})
	args := append(append([]string{}, extra...), "-p", "anything new?", "--json", "--yolo",
		"--provider", preset, "--base-url", srv.URL, "--model", "m")
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	cmd.Env = append(withoutGOGC(os.Environ()), "SHIRO_HOME="+home, "SHIRO_API_KEY=test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("shiro %v: %v\n%s", extra, err, tail(out))
	}
	if !strings.Contains(string(out), "Nothing new in the notes.") {
		b.Fatalf("no answer:\n%s", tail(out))
	}
	if left := srv.Remaining(); left != 0 {
		b.Fatalf("%d scripted replies unused", left)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}
