// Package proctest is what the tests and benchmarks of packages that start
// processes share: timing a command, and waiting for a process to be gone
// without polling. proc's own tests keep their copy of the waiting, as
// this package imports proc.
package proctest

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Timing runs spec for every iteration of b, calling before (untimed)
// ahead of each, and reports two medians and two minimums: "start", from
// Start until the command's first output arrives, which is what a launcher
// adds in front of the command when the command prints at once; and
// "total", until Wait returns. On a loaded machine the mean mostly
// measures the load, so the fastest and the median runs are what to
// compare. spec's Stdout is replaced; the command must print something.
func Timing(b *testing.B, spec proc.Spec, before func()) {
	b.Helper()
	var first atomic.Int64 // when the first output arrived, in ns since start
	var began time.Time
	spec.Stdout = proc.Stream(func([]byte) {
		first.CompareAndSwap(0, int64(time.Since(began)))
	})
	spec.Stderr = proc.SameAsStdout{}
	// The first command may do more (a launcher's probe): leave it out.
	if res, err := proc.Run(context.Background(), spec); err != nil || !res.Exit.Success() {
		b.Fatal(res, err)
	}
	var starts, totals []time.Duration
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before()
			b.StartTimer()
		}
		first.Store(0)
		began = time.Now()
		res, err := proc.Run(context.Background(), spec)
		totals = append(totals, time.Since(began))
		if err != nil || !res.Exit.Success() {
			b.Fatal(res, err)
		}
		if first.Load() == 0 {
			b.Fatal("the command printed nothing")
		}
		starts = append(starts, time.Duration(first.Load()))
	}
	report := func(took []time.Duration, name string) {
		slices.Sort(took)
		b.ReportMetric(float64(took[0].Microseconds())/1000, name+"-min-ms")
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, name+"-median-ms")
	}
	report(starts, "start")
	report(totals, "total")
}
