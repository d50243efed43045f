package anthropic_test

import (
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// The catalogue's output limit caps max_tokens, and the thinking budget
// stays under it: Claude Opus 4.1 takes at most 32,000 output tokens, so
// the max level's 48,000 budget would make the API refuse the call.
func TestOutputLimitCapsMaxTokensAndTheBudget(t *testing.T) {
	cases := []struct {
		thinking          llm.Thinking
		limit             int
		wantMax, wantBudg float64
	}{
		{llm.ThinkMax, 32000, 32000, 16000},
		{llm.ThinkMax, 128000, 64000, 48000},
		{llm.ThinkOff, 8192, 8192, 0},
		{llm.ThinkLow, 8192, 8192, 4096},
		{llm.ThinkLow, 1500, 1500, 0},
	}
	for _, c := range cases {
		srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
		req := request(llm.UserText("hi"))
		req.Thinking, req.OutputLimit = c.thinking, c.limit
		llmtest.MustCollect(t, p, req)
		body := srv.LastBody(t)
		if got := at(t, body, "max_tokens"); got != c.wantMax {
			t.Errorf("%s/%d: max_tokens = %v, want %v", c.thinking, c.limit, got, c.wantMax)
		}
		thinking, ok := body["thinking"]
		switch {
		case c.wantBudg == 0 && ok:
			t.Errorf("%s/%d: thinking = %v, want none", c.thinking, c.limit, thinking)
		case c.wantBudg != 0 && !reflect.DeepEqual(thinking, map[string]any{"type": "enabled", "budget_tokens": c.wantBudg}):
			t.Errorf("%s/%d: thinking = %v, want budget %v", c.thinking, c.limit, thinking, c.wantBudg)
		}
	}
}
