package catalog

import "github.com/shiro-neko/shiro/internal/llm"

// Price is in US dollars per million tokens.
type Price struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
}

// perToken turns a per-million price and a token count into dollars.
func perToken(price float64, tokens int) float64 { return price * float64(tokens) / 1e6 }

// Cost is what usage costs at this price. Usage.InputTokens are the
// uncached prompt tokens; cache reads and writes are priced apart.
func (p Price) Cost(u llm.Usage) float64 {
	return perToken(p.Input, u.InputTokens) + perToken(p.Output, u.OutputTokens) +
		perToken(p.CacheRead, u.CacheReadTokens) + perToken(p.CacheWrite, u.CacheWriteTokens)
}

// Savings is what the prompt cache saved against sending every prompt
// token uncached: the discount on reads less the surcharge on writes. It
// is negative when a session wrote more to the cache than it read back.
func (p Price) Savings(u llm.Usage) float64 {
	return perToken(p.Input-p.CacheRead, u.CacheReadTokens) - perToken(p.CacheWrite-p.Input, u.CacheWriteTokens)
}

// Web search prices, in US dollars per thousand searches, as the providers
// published them: Anthropic's web_search server tool, and OpenAI's
// web_search tool calls on the Responses API. The search results the
// model reads are input tokens, priced as such.
const (
	AnthropicSearchPrice = 10.0
	OpenAISearchPrice    = 10.0
)

// SearchPrice is what a preset's provider charges per thousand web
// searches it runs itself; zero when that is unknown. Only the Anthropic
// and Responses wires run searches on the provider, and each preset here
// speaks one of them, to the first-party API or a proxy of it.
func SearchPrice(preset string) float64 {
	switch preset {
	case "anthropic", "claude-code", "custom-anthropic":
		return AnthropicSearchPrice
	case "openai", "custom-openai":
		return OpenAISearchPrice
	}
	return 0
}
