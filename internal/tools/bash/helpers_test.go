package bash

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// testDeadline bounds every wait in these tests; they never sleep to let
// something happen, they wait for it and fail after this long.
const testDeadline = 20 * time.Second

// invoke prepares and runs one call of tl, relaying live output to emit
// (which may be nil).
func invoke(ctx context.Context, tl tool.Tool, input json.RawMessage, emit func(string)) (string, error) {
	res, err := tooltest.Invoke(ctx, tl, input, tool.Runtime{CallID: "c1", Output: emit})
	return res.Output, err
}

// runTool runs tl once with the given input fields.
func runTool(t testing.TB, tl tool.Tool, fields map[string]any) (string, error) {
	t.Helper()
	return invoke(context.Background(), tl, tooltest.Input(t, fields), nil)
}

// chunkWaiter collects live output and lets a test wait for a substring.
type chunkWaiter struct {
	mu   sync.Mutex
	text strings.Builder
	all  []string
	seen chan struct{}
}

func newChunkWaiter() *chunkWaiter { return &chunkWaiter{seen: make(chan struct{}, 1)} }

func (w *chunkWaiter) emit(chunk string) {
	w.mu.Lock()
	w.text.WriteString(chunk)
	w.all = append(w.all, chunk)
	w.mu.Unlock()
	select {
	case w.seen <- struct{}{}:
	default:
	}
}

func (w *chunkWaiter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

func (w *chunkWaiter) waitFor(t testing.TB, want string) {
	t.Helper()
	timeout := time.After(testDeadline)
	for !strings.Contains(w.String(), want) {
		select {
		case <-w.seen:
		case <-timeout:
			t.Fatalf("output never contained %q; got %q", want, w.String())
		}
	}
}

type runResult struct {
	out string
	err error
}
