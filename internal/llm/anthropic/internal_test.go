package anthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// history builds a conversation of n messages shaped like an agent's: a
// user prompt, then rounds of assistant thinking + text + tool call and
// the tool's result.
func history(n int) []llm.Message {
	msgs := []llm.Message{llm.UserText("Refactor the parser and keep the tests green.")}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("toolu_%04d", i)
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
			llm.Reasoning{Text: "I should look at the next file.", Signature: "c2lnbmF0dXJlLWJ5dGVz"},
			llm.Text{Text: "Reading the next file."},
			llm.ToolCall{ID: id, Name: "read", Input: json.RawMessage(`{"path":"internal/parser/file.go","offset":120,"limit":200}`)},
		}})
		if len(msgs) < n {
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{
				llm.ToolResult{CallID: id, Name: "read", Output: strings.Repeat("func parse() error { return nil }\n", 40)},
			}})
		}
	}
	return msgs
}

func benchRequest() *llm.Request {
	return &llm.Request{
		Model:         "claude-sonnet-5",
		System:        []llm.SystemBlock{{Text: "core"}, {Text: "project", Cache: true}},
		Messages:      history(200),
		Tools:         []llm.ToolSpec{{Name: "read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Thinking:      llm.ThinkMedium,
		CacheMessages: true,
		Tail:          "<tasks>none</tasks>",
	}
}

// BenchmarkBuildBody assembles the body of a 200-message request: with
// a history the adapter has not seen (every message encoded, what each
// step cost before messages were sealed) and with a sealed one (the
// steady state: only the envelope, the breakpoints and the tail are new).
func BenchmarkBuildBody(b *testing.B) {
	for _, sealed := range []bool{false, true} {
		name := "fresh"
		if sealed {
			name = "sealed"
		}
		b.Run(name, func(b *testing.B) {
			req := benchRequest()
			if sealed {
				req.Messages = sealAll(req.Messages)
			}
			var p Provider
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.buildBody(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func sealAll(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Sealed()
	}
	return out
}

// BenchmarkDecodeTextDelta measures the per-event cost of the stream
// decoder on the commonest event.
func BenchmarkDecodeTextDelta(b *testing.B) {
	var start, delta streamEvent
	mustUnmarshal(b, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, &start)
	mustUnmarshal(b, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"some words "}}`, &delta)
	var d decoder
	emit := func(llm.StreamPart) bool { return true }
	if _, err := d.event(start, emit); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.event(delta, emit); err != nil {
			b.Fatal(err)
		}
	}
}

func mustUnmarshal(tb testing.TB, s string, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		tb.Fatal(err)
	}
}

func TestHistoryOf200ConvertsToAlternatingRoles(t *testing.T) {
	var p Provider
	raw, err := p.buildBody(benchRequest())
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw.Bytes(), &body); err != nil {
		t.Fatalf("the body is not JSON: %v", err)
	}
	// The history ends with the assistant's tool call, so the tail
	// becomes a user message of its own.
	if len(body.Messages) != 201 {
		t.Fatalf("%d messages, want 200 and the tail's", len(body.Messages))
	}
	for i, m := range body.Messages {
		if user := m.Role == "user"; user != (i%2 == 0) {
			t.Fatalf("message %d: role %s; roles must alternate", i, m.Role)
		}
	}
}

// FuzzDecoder feeds arbitrary stream events (one JSON object a line) to
// the decoder: whatever a server sends, it must not panic, and a Finish
// is always the last part.
func FuzzDecoder(f *testing.F) {
	f.Add(strings.Join([]string{
		`{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":7}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
		`{"type":"message_stop"}`,
	}, "\n"))
	f.Add(`{"type":"content_block_delta","index":-3,"delta":{"type":"text_delta","text":"x"}}`)
	f.Add(`{"type":"content_block_start","index":9223372036854775807,"content_block":{"type":"redacted_thinking","data":"d"}}` + "\n" +
		`{"type":"content_block_stop","index":9223372036854775807}`)
	f.Add(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"k":[1,2]}}}` + "\n" +
		`{"type":"content_block_stop","index":0}` + "\n" + `{"type":"message_stop"}`)
	f.Fuzz(func(t *testing.T, input string) {
		var d decoder
		var parts []llm.StreamPart
		emit := func(p llm.StreamPart) bool { parts = append(parts, p); return true }
		sc := bufio.NewScanner(bytes.NewReader([]byte(input)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev streamEvent
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			if _, err := d.event(ev, emit); err != nil {
				if err.Error() == "" {
					t.Fatal("an error without a message")
				}
				return
			}
		}
		for i, p := range parts {
			if done, ok := p.(llm.ToolCallDone); ok && !json.Valid(done.Input) {
				t.Fatalf("tool call with invalid input %q", done.Input)
			}
			if _, ok := p.(llm.Finish); ok && i != len(parts)-1 {
				t.Fatalf("Finish at %d of %d parts", i, len(parts))
			}
		}
	})
}

// decode runs events (JSON objects) through a fresh decoder.
func decode(t *testing.T, events ...string) ([]llm.StreamPart, error) {
	t.Helper()
	var d decoder
	var parts []llm.StreamPart
	emit := func(p llm.StreamPart) bool { parts = append(parts, p); return true }
	for _, e := range events {
		var ev streamEvent
		mustUnmarshal(t, e, &ev)
		if _, err := d.event(ev, emit); err != nil {
			return parts, err
		}
	}
	return parts, nil
}

func TestDecoderEdgeCases(t *testing.T) {
	const stop = `{"type":"message_stop"}`
	t.Run("tool input only in the start event", func(t *testing.T) {
		parts, err := decode(t,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"k":[1,2]}}}`,
			`{"type":"content_block_stop","index":0}`)
		if err != nil {
			t.Fatal(err)
		}
		if done := parts[1].(llm.ToolCallDone); string(done.Input) != `{"k":[1,2]}` {
			t.Fatalf("input = %s", done.Input)
		}
	})
	t.Run("redacted thinking", func(t *testing.T) {
		parts, err := decode(t,
			`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"opaque"}}`,
			`{"type":"content_block_stop","index":0}`)
		if err != nil || len(parts) != 1 || parts[0] != (llm.ReasoningEnd{Redacted: "opaque"}) {
			t.Fatalf("parts %v, err %v", parts, err)
		}
	})
	t.Run("message_delta usage replaces message_start's", func(t *testing.T) {
		parts, err := decode(t,
			`{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":7,"cache_creation_input_tokens":9,"output_tokens":1}}}`,
			`{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":40,"input_tokens":6}}`,
			stop)
		want := llm.Finish{Reason: llm.StopOther, Usage: llm.Usage{InputTokens: 6, OutputTokens: 40, CacheReadTokens: 7, CacheWriteTokens: 9}}
		if err != nil || len(parts) != 1 || parts[0] != want {
			t.Fatalf("parts %v, err %v; want %v", parts, err, want)
		}
	})
	t.Run("events after message_stop are ignored", func(t *testing.T) {
		parts, err := decode(t, stop, `{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}`)
		if err != nil || len(parts) != 1 {
			t.Fatalf("parts %v, err %v", parts, err)
		}
	})
	for name, events := range map[string][]string{
		"not open": {`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"x"}}`},
		"started twice": {
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		},
		"a text block": {
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`,
		},
		"without having started": {`{"type":"content_block_stop","index":1}`},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := decode(t, events...); err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("err = %v, want one saying %q", err, name)
			}
		})
	}
}

// A sealed history produces the very bytes a fresh one does, on the first
// request (which fills the memo) and on later ones (which read it); the
// tail and the breakpoints of one request never leak into the memo.
func TestSealedHistoryEncodesTheSameBytes(t *testing.T) {
	// The history ends with the user's words, so that the tail and the
	// moving breakpoint both land in a memoised message.
	req := benchRequest()
	req.Messages = append(history(200), llm.UserText("and now the tests"))
	var p Provider
	fresh, err := p.buildBody(req)
	if err != nil {
		t.Fatal(err)
	}
	sealed := *req
	sealed.Messages = sealAll(req.Messages)
	for i := range 2 {
		got, err := p.buildBody(&sealed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), fresh.Bytes()) {
			t.Fatalf("request %d from sealed messages differs from a fresh encoding", i)
		}
	}
	bare := sealed
	bare.Tail, bare.CacheMessages = "", false
	body, _ := p.buildBody(&bare)
	got := body.Bytes()
	_, messages, _ := strings.Cut(string(got), `"messages":`)
	if strings.Contains(messages, "<tasks>") || strings.Contains(messages, "cache_control") {
		t.Fatalf("the tail or a breakpoint of an earlier request stayed in the memo:\n%s", got[len(got)-300:])
	}
}
