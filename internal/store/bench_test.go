//go:build unix

package store

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
)

// realisticSteps is a conversation of n messages shaped like a coding
// session: a prompt, then rounds of an assistant message with a tool call
// and its result (about 2 KB of file or command output).
func realisticSteps(n int) []Step {
	output := strings.Repeat("func parse(line string) (Token, error) { // a line of source\n", 32)
	steps := []Step{user("refactor the parser so that it keeps tabs, and run the tests after each change")}
	for i := 0; len(steps) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		steps = append(steps, assistant("Reading the next file to see how it handles whitespace.",
			call(id, "read_file", fmt.Sprintf(`{"path":"internal/parse/file%d.go"}`, i))))
		if len(steps) < n {
			steps = append(steps, results(llm.ToolResult{CallID: id, Name: "read_file", Output: output}))
		}
	}
	return steps
}

// cpuMeter reports the process's CPU time per operation beside the wall
// time: on a loaded machine (CI, or other builds running) the wall time
// measures the queue for the cores, the CPU time the work itself.
type cpuMeter struct{ start time.Duration }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) *cpuMeter {
	b.ResetTimer()
	return &cpuMeter{start: cpuTime()}
}

func (m *cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(cpuTime()-m.start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkResume1000Messages is resuming a 1,000-message session: the
// history and task list read and decoded. The target is under 100 ms.
func BenchmarkResume1000Messages(b *testing.B) {
	s := newStore(b)
	ctx := context.Background()
	h := head("big", "/work/p")
	steps := realisticSteps(1000)
	for i := 0; i < len(steps); i += 100 {
		mustAppend(b, s, h, steps[i:min(i+100, len(steps))]...)
	}
	cpu := startCPU(b)
	for b.Loop() {
		snap, err := s.Load(ctx, "big")
		if err != nil || len(snap.History) != 1000 {
			b.Fatalf("%d messages, %v", len(snap.History), err)
		}
	}
	cpu.report(b)
}

// BenchmarkList5000Sessions is `shiro sessions list --all` over 5,000
// sessions. The target is under 50 ms.
func BenchmarkList5000Sessions(b *testing.B) {
	s := newStore(b)
	ctx := context.Background()
	db, err := s.conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5000 {
		if _, err := tx.Exec(`INSERT INTO sessions (id, cwd, title, provider, model, created_at, updated_at, messages)
VALUES (?, ?, ?, 'anthropic', 'claude', ?, ?, 12)`, NewID(), fmt.Sprintf("/work/project%d", i%40), Title(fmt.Sprintf("session number %d about something", i)), i, i); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	cpu := startCPU(b)
	for b.Loop() {
		list, err := s.List(ctx, ListOptions{})
		if err != nil || len(list) != 5000 {
			b.Fatalf("%d sessions, %v", len(list), err)
		}
	}
	cpu.report(b)
}

// BenchmarkAppendStep is the cost a turn pays per step: one message
// committed in its own transaction.
func BenchmarkAppendStep(b *testing.B) {
	s := newStore(b)
	ctx := context.Background()
	h := head("s", "/work/p")
	steps := realisticSteps(64)
	i := 0
	cpu := startCPU(b)
	for b.Loop() {
		if err := s.Append(ctx, h, steps[i%len(steps)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	cpu.report(b)
}
