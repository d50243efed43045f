package lsp

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkFirstReport measures what a session pays the first time it
// touches a language: the server's start and its first report on a file,
// and the memory of its process tree then (docs/lsp.md, Cost). Run with
// go test -run '^$' -bench FirstReport -benchtime 1x ./internal/lsp/
func BenchmarkFirstReport(b *testing.B) {
	for _, c := range []struct{ name, fixture, file string }{{"gopls", "go", "main.go"}, {"typescript", "ts", "main.ts"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				root := fixture(b, c.fixture)
				m := needServer(b, c.name, root)
				start := time.Now()
				m.Before(context.Background(), []string{c.file})
				first := time.Since(start)
				st := m.Status()[0]
				b.ReportMetric(st.Startup.Seconds(), "start-s")
				b.ReportMetric(first.Seconds(), "first-report-s")
				b.ReportMetric(float64(treeRSS(st.PID))/1024, "rss-MB")
				m.Close()
			}
		})
	}
}

// treeRSS is the resident memory of a process and its descendants, in KB.
func treeRSS(pid int) int {
	total := 0
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			total += n
		}
	}
	kids, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	for _, k := range strings.Fields(string(kids)) {
		if c, err := strconv.Atoi(k); err == nil {
			total += treeRSS(c)
		}
	}
	return total
}
