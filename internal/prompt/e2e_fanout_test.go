package prompt_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// fanOutFiles are the files a wide step reads at once, one read_file call
// each. They are the project's core types, which change rarely.
var fanOutFiles = []string{
	"go.mod",
	"internal/llm/message.go",
	"internal/llm/provider.go",
	"internal/llm/stream.go",
	"internal/llm/accumulate.go",
	"internal/llm/errors.go",
	"internal/llm/retry.go",
	"internal/tool/tool.go",
	"internal/workspace/env.go",
	"internal/tool/registry.go",
	"internal/protocol/events.go",
	"internal/shellguard/parse.go",
}

// fanOutSession scripts a turn of n model calls. A step for which wide
// reports true makes len(fanOutFiles) read_file calls at once: with the
// model's text that adds 25 blocks to the conversation, more than the
// cache lookback of about 20. The other steps are those of taskSession:
// rewrite the task list and read one file.
func fanOutSession(n int, wide func(step int) bool) []llmtest.Reply {
	narrow := taskSession(n, readFiles)
	replies := make([]llmtest.Reply, 0, n)
	for step := 1; step < n; step++ {
		if !wide(step) {
			replies = append(replies, narrow[step-1])
			continue
		}
		var calls []llmtest.ToolCall
		for i, path := range fanOutFiles {
			in, _ := json.Marshal(map[string]any{"path": path, "limit": 60})
			calls = append(calls, llmtest.ToolCall{ID: fmt.Sprintf("wide%d_%d", step, i), Name: "read_file", Input: string(in)})
		}
		replies = append(replies, llmtest.Reply{Text: fmt.Sprintf("Reading the core types for step %d.", step), ToolCalls: calls})
	}
	return append(replies, narrow[n-1])
}

// fanOutMeasure runs a scripted session on this repository and replays
// its request bodies through two fresh simulations: as they were sent,
// and with the lookback breakpoint taken out, which is what the adapter
// sent before it had one.
func fanOutMeasure(t *testing.T, replies []llmtest.Reply) (with, without *cacheSim) {
	t.Helper()
	srv := newCachingServer(t, replies...)
	a := openApp(t, srv.URL, "anthropic", repoRoot(t), nil)
	seedMemory(t, a.Memory)
	runTurn(t, a.Session, "read the core types and work through the plan")
	calls := srv.upstream.ModelCalls()
	if len(calls) != len(replies) {
		t.Fatalf("%d model calls, want %d", len(calls), len(replies))
	}
	with, without = newCacheSim(), newCacheSim()
	without.movingOnly = true
	for i, c := range calls {
		with.observe(t, c.Body)
		without.observe(t, c.Body)
		b := decode(t, c)
		if n := strings.Count(string(c.Body), `"cache_control"`); n > 4 {
			t.Fatalf("request %d carries %d breakpoints", i+1, n)
		}
		if i == 0 {
			continue
		}
		blocks := b.lastBlocks()
		if _, marked := blocks[len(blocks)-1]["cache_control"]; marked {
			t.Fatalf("request %d: the tail carries a breakpoint", i+1)
		}
	}
	return with, without
}

// Wide fan-out: a step that makes 12 tool calls at once adds more blocks
// than the cache looks back. With the lookback breakpoint every request
// reads every byte an earlier request made cacheable; without it, the
// request after each wide step writes the whole history again.
func TestWideFanOutHitRatio(t *testing.T) {
	const steps = 10
	for _, c := range []struct {
		name string
		wide func(int) bool
	}{
		{"every step reads 12 files", func(int) bool { return true }},
		{"step 4 reads 12 files", func(step int) bool { return step == 4 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			with, without := fanOutMeasure(t, fanOutSession(steps, c.wide))
			t.Logf("%d steps, %s: after the first request, hit ratio %.3f with the lookback breakpoint, %.3f without, best possible %.3f",
				steps, c.name, with.ratio(1), without.ratio(1), with.idealRatio(1))
			for i, u := range with.requests() {
				v := without.requests()[i]
				t.Logf("  request %2d  with in/write/read %5d/%6d/%6d   without %5d/%6d/%6d (best %6d)", i+1, u.Input, u.Write, u.Read, v.Input, v.Write, v.Read, u.Ideal)
				if u.Read != u.Ideal {
					t.Errorf("request %d: read %d tokens from cache, %d were cacheable", i+1, u.Read, u.Ideal)
				}
			}
			if with.ratio(1) <= without.ratio(1) {
				t.Errorf("the lookback breakpoint must raise the hit ratio: %.3f <= %.3f", with.ratio(1), without.ratio(1))
			}
		})
	}
}
