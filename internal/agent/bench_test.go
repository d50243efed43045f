package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// alternatingProvider answers with a tool call, then with text, forever, so
// that every turn is exactly two steps.
type alternatingProvider struct{ n int }

func (p *alternatingProvider) Name() string { return "bench" }

func (p *alternatingProvider) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamPart, error] {
	p.n++
	odd := p.n%2 == 1
	return func(yield func(llm.StreamPart, error) bool) {
		if odd {
			if !yield(llm.ToolInputStart{ID: "c", Name: "noop"}, nil) ||
				!yield(llm.ToolCallDone{ID: "c", Name: "noop", Input: json.RawMessage(`{"path":"a.go"}`)}, nil) {
				return
			}
		} else if !yield(llm.TextDelta{Text: "done"}, nil) {
			return
		}
		yield(llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil)
	}
}

// history200 is a realistic 200-message history: user turns, assistant
// answers with tool calls, and tool results of a few hundred bytes.
func history200() []llm.Message {
	h := make([]llm.Message, 0, 200)
	body := strings.Repeat("line of file content\n", 20)
	for len(h) < 200 {
		i := len(h)
		h = append(h,
			llm.UserText(fmt.Sprintf("request %d", i)),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "reading"}, llm.ToolCall{ID: fmt.Sprint(i), Name: "noop", Input: json.RawMessage(`{"path":"a.go"}`)}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: fmt.Sprint(i), Name: "noop", Output: body}}},
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "answer"}}},
		)
	}
	return h[:200]
}

// BenchmarkStep measures the loop's own cost per step: building the request
// from live state, streaming the scripted response into events, passing the
// call through the gate and running a no-op tool, over a 200-message
// history, with the events read by a front end as they come.
func BenchmarkStep(b *testing.B) {
	reg, _ := tool.NewRegistry((&fakeTool{name: "noop"}).build())
	s, err := agent.Start(context.Background(), agent.Config{
		Provider: &alternatingProvider{}, Model: "m", SessionID: "bench", Cwd: b.TempDir(), Tools: reg,
		Gate:     &agent.Gate{Rules: allowAll(), Plugins: plugin.NewHost()},
		Prompter: staticPrompter{stable: strings.Repeat("stable prompt ", 500), volatile: "task list"},
		Filter:   tool.Filter{Sets: tool.DefaultSets()},
	})
	if err != nil {
		b.Fatal(err)
	}
	base := history200()
	if err := s.Resume(s.ID(), base); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	steps := 0
	for i := 0; i < b.N; i++ {
		if i%50 == 0 {
			// Keep the history near 200 messages; the size cache is rebuilt
			// here, as it would be once on resume.
			b.StopTimer()
			s.Wait()
			_ = s.Resume(s.ID(), base)
			b.StartTimer()
		}
		for e := range s.Send(ctx, "go") {
			if _, ok := e.(protocol.ErrorEvent); ok {
				b.Fatal(e)
			}
		}
		steps += 2
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps)/1000, "µs/step")
}
