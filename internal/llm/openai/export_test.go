package openai

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/shiro-neko/shiro/internal/llm"
)

// ChatParams exposes the chat request mapping to benchmarks.
func (p *Provider) ChatParams(req *llm.Request) (openai.ChatCompletionNewParams, error) {
	return p.chatParams(req)
}

// ResponsesParams exposes the Responses request mapping to benchmarks.
func (p *Provider) ResponsesParams(req *llm.Request) (responses.ResponseNewParams, error) {
	return p.responsesParams(req)
}
