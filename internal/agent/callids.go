package agent

import (
	"fmt"
	"slices"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Tool-call ids are shiro's own, unique within the session. A provider's
// id is kept when the session has not used it yet (Anthropic's and
// OpenAI's ids are unique anyway), and replaced when it repeats one: an
// endpoint that numbers calls per response (Ollama, LM Studio, many
// proxies) says "call_0" in every answer, and a second "call_0" would be
// drawn into the first one's transcript line and paired with its result.
// The provider's id is kept beside shiro's and sent back in requests.

// noteCallIDsLocked adds the ids of h's calls to those the session has
// used; the caller holds s.mu. Ids are never forgotten, not even when a
// compaction drops their messages: the transcript and the store still
// show them.
func (s *session) noteCallIDsLocked(h []llm.Message) {
	if s.callIDs == nil {
		s.callIDs = map[string]bool{}
	}
	for _, m := range h {
		for _, c := range m.ToolCalls() {
			s.callIDs[c.ID] = true
		}
	}
}

// claimCallID returns a session-unique id for a call the provider named
// provided, and marks it used.
func (s *session) claimCallID(provided string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.callIDs == nil {
		s.callIDs = map[string]bool{}
	}
	id, base := provided, provided
	if base == "" {
		base = "call"
	}
	for n := 2; id == "" || s.callIDs[id]; n++ {
		id = fmt.Sprintf("%s_%d", base, n)
	}
	s.callIDs[id] = true
	return id
}

// callNames maps one response's provider ids to shiro's: the id a call's
// start event announced is the one its complete call gets.
type callNames struct {
	s       *session
	started map[string]string // provider id → shiro id, from tool-start
}

// start names a call the stream announced.
func (n *callNames) start(provided string) string {
	if id, ok := n.started[provided]; ok {
		return id
	}
	id := n.s.claimCallID(provided)
	if n.started == nil {
		n.started = map[string]string{}
	}
	n.started[provided] = id
	return id
}

// own gives msg's calls shiro's ids, keeping the provider's beside them.
// A call takes the id its start announced; a second call with the same
// provider id in one response gets a fresh one.
func (n *callNames) own(msg llm.Message) llm.Message {
	taken := map[string]bool{}
	for i, p := range msg.Parts {
		c, ok := p.(llm.ToolCall)
		if !ok {
			continue
		}
		id, ok := n.started[c.ID]
		if !ok || taken[id] {
			id = n.s.claimCallID(c.ID)
		}
		taken[id] = true
		if id != c.ID {
			c.ProviderID, c.ID = c.ID, id
			msg.Parts[i] = c
		}
	}
	return msg
}

// providerIDs is the history as the provider is sent it: a call shiro
// renamed goes out under the id the provider gave it, and so does the
// result that answers it, when no other call of the request would go out
// under that id too; otherwise shiro's unique id goes out, so the
// provider can always pair each result with its call. msgs is not
// changed: messages with renamed calls are copied.
func providerIDs(msgs []llm.Message) []llm.Message {
	uses := map[string]int{}
	renamed := false
	for _, m := range msgs {
		for _, c := range m.ToolCalls() {
			if c.ProviderID != "" {
				uses[c.ProviderID]++
				renamed = true
			} else {
				uses[c.ID]++
			}
		}
	}
	if !renamed {
		return msgs
	}
	wire := map[string]string{} // shiro id → provider id
	for _, m := range msgs {
		for _, c := range m.ToolCalls() {
			if c.ProviderID != "" && uses[c.ProviderID] == 1 {
				wire[c.ID] = c.ProviderID
			}
		}
	}
	if len(wire) == 0 {
		return msgs
	}
	out := slices.Clone(msgs)
	for i, m := range out {
		var parts []llm.Part
		for j, p := range m.Parts {
			switch p := p.(type) {
			case llm.ToolCall:
				if w, ok := wire[p.ID]; ok {
					parts = partsCopy(parts, m.Parts)
					p.ID, p.ProviderID = w, ""
					parts[j] = p
				}
			case llm.ToolResult:
				if w, ok := wire[p.CallID]; ok {
					parts = partsCopy(parts, m.Parts)
					p.CallID = w
					parts[j] = p
				}
			}
		}
		if parts != nil {
			out[i] = llm.Message{Role: m.Role, Parts: parts}
		}
	}
	return out
}

// partsCopy returns parts, or a copy of from when parts is still nil.
func partsCopy(parts, from []llm.Part) []llm.Part {
	if parts != nil {
		return parts
	}
	return slices.Clone(from)
}
