package llm

import "encoding/json"

// Hosted names a tool that some providers run on their side. A ToolSpec
// that carries it is still an ordinary function tool; an adapter whose
// wire has the provider's own version offers that one in its place, and
// the model's calls then run on the provider and never come back as
// ToolCalls.
type Hosted string

// HostedWebSearch is web search: Anthropic's web_search server tool,
// OpenAI's web_search tool on the Responses API.
const HostedWebSearch Hosted = "web_search"

// Wires whose provider-run blocks a ServerBlock can hold.
const (
	WireAnthropic = "anthropic"
	WireResponses = "openai-responses"
)

// ServerBlock is one block of a provider-run tool, as the provider sent
// it: Anthropic's server_tool_use and web_search_tool_result content
// blocks, or a Responses web_search_call item. It is kept in the history
// and sent back verbatim on the same wire (Anthropic requires the
// results, with their encrypted content, for the citations that point at
// them); another wire drops it. It is also a stream part: the adapter
// yields it when the block is complete.
type ServerBlock struct {
	Wire string
	Raw  json.RawMessage
}

func (ServerBlock) isPart()       {}
func (ServerBlock) isStreamPart() {}

// Citation is a source the model cited in its answer, for people to see:
// the adapters list a response's citations after its text.
type Citation struct {
	URL, Title string
}
