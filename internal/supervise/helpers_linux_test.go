package supervise

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
)

// testDeadline bounds every wait in these tests; they never sleep to let
// something happen, they wait for it and fail after this long.
const testDeadline = 20 * time.Second

// collector gathers a stream's output and lets a test wait for a line.
type collector struct {
	mu   sync.Mutex
	buf  strings.Builder
	seen chan struct{}
}

func newCollector() *collector { return &collector{seen: make(chan struct{}, 1)} }

func (c *collector) stream() proc.Stream {
	return func(p []byte) {
		c.mu.Lock()
		c.buf.Write(p)
		c.mu.Unlock()
		select {
		case c.seen <- struct{}{}:
		default:
		}
	}
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

// mustRun runs spec and fails the test if it cannot start.
func mustRun(t *testing.T, spec proc.Spec) proc.Result {
	t.Helper()
	res, err := proc.Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
