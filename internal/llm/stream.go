package llm

import (
	"encoding/json"
	"fmt"
)

// StreamPart is one piece of a streamed model response. It is a sealed sum
// type; the JSON form (used by cassettes) is tagged with "type".
type StreamPart interface{ isStreamPart() }

// TextDelta is a chunk of answer text.
type TextDelta struct{ Text string }

// ReasoningDelta is a chunk of visible thinking.
type ReasoningDelta struct{ Text string }

// ReasoningEnd closes a reasoning block; it carries what the provider needs
// to accept the block when it is sent back (see Reasoning).
type ReasoningEnd struct {
	Signature string
	Redacted  string
	ItemID    string
	Encrypted string
}

// ToolInputStart announces a tool call before its arguments finish.
type ToolInputStart struct {
	ID   string
	Name string
}

// ToolInputDelta is a chunk of a tool call's JSON arguments.
type ToolInputDelta struct {
	ID    string
	Delta string
}

// ToolCallDone is a complete tool call with its parsed arguments.
type ToolCallDone struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// Notice is something the person should see about the call itself, such
// as a retry after a rate limit or an endpoint fallback.
type Notice struct{ Text string }

// Finish ends a response.
type Finish struct {
	Reason StopReason
	Usage  Usage
}

func (TextDelta) isStreamPart()      {}
func (ReasoningDelta) isStreamPart() {}
func (ReasoningEnd) isStreamPart()   {}
func (ToolInputStart) isStreamPart() {}
func (ToolInputDelta) isStreamPart() {}
func (ToolCallDone) isStreamPart()   {}
func (Notice) isStreamPart()         {}
func (Finish) isStreamPart()         {}

type wireStreamPart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Redacted  string          `json:"redacted,omitempty"`
	ItemID    string          `json:"itemId,omitempty"`
	Encrypted string          `json:"encrypted,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Delta     string          `json:"delta,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Reason    StopReason      `json:"reason,omitempty"`
	Usage     *Usage          `json:"usage,omitempty"`
	Wire      string          `json:"wire,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"`
}

// MarshalStreamPart encodes a stream part as tagged JSON.
func MarshalStreamPart(p StreamPart) ([]byte, error) {
	var w wireStreamPart
	switch p := p.(type) {
	case TextDelta:
		w = wireStreamPart{Type: "text-delta", Text: p.Text}
	case ReasoningDelta:
		w = wireStreamPart{Type: "reasoning-delta", Text: p.Text}
	case ReasoningEnd:
		w = wireStreamPart{Type: "reasoning-end", Signature: p.Signature, Redacted: p.Redacted, ItemID: p.ItemID, Encrypted: p.Encrypted}
	case ToolInputStart:
		w = wireStreamPart{Type: "tool-input-start", ID: p.ID, Name: p.Name}
	case ToolInputDelta:
		w = wireStreamPart{Type: "tool-input-delta", ID: p.ID, Delta: p.Delta}
	case ToolCallDone:
		w = wireStreamPart{Type: "tool-call", ID: p.ID, Name: p.Name, Input: inputOrEmpty(p.Input)}
	case Notice:
		w = wireStreamPart{Type: "notice", Text: p.Text}
	case ServerBlock:
		w = wireStreamPart{Type: "server-block", Wire: p.Wire, Raw: p.Raw}
	case Finish:
		u := p.Usage
		w = wireStreamPart{Type: "finish", Reason: p.Reason, Usage: &u}
	default:
		return nil, fmt.Errorf("llm: cannot encode stream part %T", p)
	}
	return json.Marshal(w)
}

// UnmarshalStreamPart decodes a part written by MarshalStreamPart.
func UnmarshalStreamPart(b []byte) (StreamPart, error) {
	var w wireStreamPart
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	switch w.Type {
	case "text-delta":
		return TextDelta{Text: w.Text}, nil
	case "reasoning-delta":
		return ReasoningDelta{Text: w.Text}, nil
	case "reasoning-end":
		return ReasoningEnd{Signature: w.Signature, Redacted: w.Redacted, ItemID: w.ItemID, Encrypted: w.Encrypted}, nil
	case "tool-input-start":
		return ToolInputStart{ID: w.ID, Name: w.Name}, nil
	case "tool-input-delta":
		return ToolInputDelta{ID: w.ID, Delta: w.Delta}, nil
	case "tool-call":
		if w.ID == "" || w.Name == "" {
			return nil, fmt.Errorf("llm: tool-call part needs an id and a name")
		}
		return ToolCallDone{ID: w.ID, Name: w.Name, Input: inputOrEmpty(w.Input)}, nil
	case "notice":
		return Notice{Text: w.Text}, nil
	case "server-block":
		block := ServerBlock{Wire: w.Wire, Raw: w.Raw}
		if !block.wellFormed() {
			return nil, fmt.Errorf("llm: server-block part needs a wire and its block as a JSON object")
		}
		return block, nil
	case "finish":
		f := Finish{Reason: w.Reason}
		if w.Usage != nil {
			f.Usage = *w.Usage
		}
		if f.Reason == "" {
			f.Reason = StopEnd
		}
		return f, nil
	}
	return nil, fmt.Errorf("llm: unknown stream part type %q", w.Type)
}
