package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

func bigHistory(n int, output string) []llm.Message {
	var h []llm.Message
	h = append(h, llm.UserText("the first goal"))
	for i := 0; i < n; i++ {
		id := string(rune('a' + i%26))
		h = append(h,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Reasoning{Text: strings.Repeat("r", 500), Signature: "s"}, llm.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(`{}`)}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: id, Name: "read_file", Output: output}}},
		)
	}
	return h
}

// Invariant 6: pruning shortens history, never blanks it, and never leaves a
// tool result without its call (or a call without its result).
func TestPruneKeepsPairsAndHead(t *testing.T) {
	h := bigHistory(100, strings.Repeat("x", 4000))
	var sizes sizeCache
	wire, before, after := pruneForWire(h, &sizes, &pruneMemo{}, 20000)
	if after >= before {
		t.Fatalf("nothing pruned: %d -> %d", before, after)
	}
	if len(wire) != len(h) {
		t.Fatalf("messages dropped: %d -> %d", len(h), len(wire))
	}
	if wire[0].PlainText() != "the first goal" {
		t.Fatal("the first goal was lost")
	}
	calls, results := map[string]int{}, map[string]int{}
	for _, m := range wire {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.ToolCall:
				calls[p.ID]++
			case llm.ToolResult:
				results[p.CallID]++
			}
		}
	}
	for id, n := range results {
		if calls[id] != n {
			t.Fatalf("result %s has %d results but %d calls", id, n, calls[id])
		}
	}
	last := wire[len(wire)-1].Parts[0].(llm.ToolResult)
	if last.Output == prunedOutput {
		t.Fatal("the newest tool output must be kept")
	}
	if h[2].Parts[0].(llm.ToolResult).Output == prunedOutput {
		t.Fatal("the stored history must never be changed")
	}
}

func TestPruneDropsEarlierReasoningFirst(t *testing.T) {
	h := bigHistory(30, "short")
	h = append(h, llm.UserText("next"))
	var sizes sizeCache
	total := sizes.total(h)
	wire, _, after := pruneForWire(h, &sizes, &pruneMemo{}, total-100)
	for _, m := range wire {
		for _, p := range m.Parts {
			if _, ok := p.(llm.Reasoning); ok {
				t.Fatal("reasoning from earlier turns should go first")
			}
		}
	}
	if wire[2].Parts[0].(llm.ToolResult).Output != "short" {
		t.Fatal("tool output pruned although dropping reasoning was enough")
	}
	if after > total-100 {
		t.Fatalf("still too big: %d", after)
	}
}

func TestUnderTheLimitTheHistoryIsSentAsIs(t *testing.T) {
	h := bigHistory(3, "x")
	var sizes sizeCache
	wire, before, after := pruneForWire(h, &sizes, &pruneMemo{}, 1_000_000)
	if before != after || &wire[0] != &h[0] {
		t.Fatal("a small history must not be copied or changed")
	}
}

// Once pruning sends a shorter form of a message in its place, the
// message's own encoding (its whole tool output again) is let go; the
// messages still sent as they are keep theirs.
func TestPruneForgetsTheEncodingOfWhatItReplaces(t *testing.T) {
	h := bigHistory(100, strings.Repeat("x", 4000))
	for i := range h {
		h[i] = h[i].Sealed()
	}
	calls := 0
	encode := func(m llm.Message) ([]byte, error) {
		calls++
		return json.Marshal(m)
	}
	for _, m := range h {
		if _, err := llm.Encode(m, "k", encode); err != nil {
			t.Fatal(err)
		}
	}
	wire, _, _ := pruneForWire(h, &sizeCache{}, &pruneMemo{}, 20000)
	if wire[2].Parts[0].(llm.ToolResult).Output != prunedOutput {
		t.Fatal("the oldest output should be pruned")
	}
	calls = 0
	last := len(h) - 1
	_, _ = llm.Encode(h[last], "k", encode)
	if calls != 0 {
		t.Fatal("a message sent as it is lost its encoding")
	}
	again, _ := llm.Encode(h[2], "k", encode)
	if calls != 1 {
		t.Fatal("a pruned message kept its encoding")
	}
	if want, _ := json.Marshal(h[2]); string(again) != string(want) {
		t.Fatal("a pruned message is encoded again to other bytes")
	}
}
