package openai

import (
	"github.com/shiro-neko/shiro/internal/llm"
)

// ChatBody exposes the chat completions request body to benchmarks.
func (p *Provider) ChatBody(req *llm.Request) (*llm.Body, error) { return p.chatBody(req) }

// ResponsesBody exposes the Responses API request body to benchmarks.
func (p *Provider) ResponsesBody(req *llm.Request) (*llm.Body, error) { return p.responsesBody(req) }
