package replay_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

func TestParseNamesTheBadLine(t *testing.T) {
	_, err := replay.Parse("c.jsonl", strings.NewReader("{\"parts\":[{\"type\":\"text-delta\",\"text\":\"a\"}]}\n{\"parts\":[{\"type\":\"nope\"}]}\n"))
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:2") || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err = %v", err)
	}
	_, err = replay.Parse("c.jsonl", strings.NewReader(`{"turns":[]}`))
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:1") {
		t.Fatalf("err = %v", err)
	}
}

func TestRecordThenReplayRoundTrips(t *testing.T) {
	orig := []replay.Response{{
		llm.ReasoningDelta{Text: "hmm"}, llm.ReasoningEnd{Signature: "sig"},
		llm.ToolInputStart{ID: "1", Name: "grep"}, llm.ToolInputDelta{ID: "1", Delta: `{"pat`},
		llm.ToolCallDone{ID: "1", Name: "grep", Input: []byte(`{"pattern":"x"}`)},
		llm.Finish{Reason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4}},
	}}
	var buf bytes.Buffer
	rec := replay.Record(replay.New("in", orig), &buf)
	var seen []llm.StreamPart
	for p, err := range rec.Stream(t.Context(), &llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, p)
	}
	back, err := replay.Parse("rec", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || len(back[0]) != len(orig[0]) {
		t.Fatalf("recorded %d responses: %+v", len(back), back)
	}
	for i := range orig[0] {
		a, _ := llm.MarshalStreamPart(orig[0][i])
		b, _ := llm.MarshalStreamPart(back[0][i])
		if !bytes.Equal(a, b) {
			t.Errorf("part %d: %s != %s", i, a, b)
		}
	}
}

func TestRunningOutIsAClearError(t *testing.T) {
	p := replay.New("c.jsonl", nil)
	for _, err := range p.Stream(t.Context(), &llm.Request{}) {
		if err == nil || !strings.Contains(err.Error(), "cassette c.jsonl ran out") {
			t.Fatalf("err = %v", err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"parts":[{"type":"text-delta","text":"a"},{"type":"finish","reason":"end"}]}`)
	f.Add(`{"parts":[{"type":"tool-call","id":"1","name":"x","input":{}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		resp, err := replay.Parse("fuzz", strings.NewReader(in))
		if err != nil {
			return
		}
		for _, r := range resp {
			if _, ok := r[len(r)-1].(llm.Finish); !ok {
				t.Fatal("a parsed response must end with finish")
			}
		}
	})
}
