package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
)

// commitModel answers git_commit_message's one nested model call with the
// session's own provider and model, thinking off.
type commitModel struct{ a *App }

func (m commitModel) Complete(ctx context.Context, system, prompt string) (string, error) {
	if m.a.provider == nil {
		return "", fmt.Errorf("no model is configured")
	}
	req := &llm.Request{
		Model:     m.a.owner.Model(),
		System:    []llm.SystemBlock{{Text: system}},
		Messages:  []llm.Message{llm.UserText(prompt)},
		Thinking:  llm.ThinkOff,
		MaxTokens: 300,
	}
	var out strings.Builder
	for part, err := range m.a.provider.Stream(ctx, req) {
		if err != nil {
			return "", err
		}
		if t, ok := part.(llm.TextDelta); ok {
			out.WriteString(t.Text)
		}
	}
	return out.String(), nil
}
