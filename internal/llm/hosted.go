package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

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

// wellFormed reports whether the block can go back: a wire, and a JSON
// object (every provider block is one).
func (b ServerBlock) wellFormed() bool {
	raw := bytes.TrimSpace(b.Raw)
	return b.Wire != "" && len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

func (ServerBlock) isPart()       {}
func (ServerBlock) isStreamPart() {}

// Citation is a source the model cited in its answer, for people to see:
// the adapters list a response's citations after its text.
type Citation struct {
	URL, Title string
}

// Sources collects a response's citations, each URL once, in the order
// first cited.
type Sources struct {
	list []Citation
	seen map[string]bool
}

// Add records a citation; one without a URL is ignored.
func (s *Sources) Add(c Citation) {
	if c.URL == "" || s.seen[c.URL] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[c.URL] = true
	s.list = append(s.list, c)
}

// List is the text shown after an answer that cites sources: a blank
// line, "Sources:", then one numbered line per source. It is "" when
// nothing was cited. It is part of the answer, so the transcript, the
// headless output and later turns all have it.
func (s *Sources) List() string {
	if len(s.list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nSources:")
	for i, c := range s.list {
		title := strings.Join(strings.Fields(c.Title), " ")
		if title == "" {
			fmt.Fprintf(&b, "\n%d. %s", i+1, c.URL)
			continue
		}
		fmt.Fprintf(&b, "\n%d. %s — %s", i+1, title, c.URL)
	}
	return b.String()
}

// HostedNotice is what the person is told when the provider ran a tool
// itself: what it ran, and that shiro's permission rules did not see it
// (they cannot: the provider runs it before answering).
func HostedNotice(provider, name string, input json.RawMessage) string {
	var in struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(input, &in)
	what := name
	if in.Query != "" {
		what = fmt.Sprintf("%s %q", name, in.Query)
	}
	return fmt.Sprintf("%s ran %s on its side; it does not pass your permission rules (set webSearch.local to true to search through shiro and be asked)", provider, what)
}
