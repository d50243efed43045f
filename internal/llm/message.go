// Package llm holds the provider-neutral types the agent speaks: messages made
// of parts, tool specs, usage, requests and the parts of a streamed response.
// Only the adapter packages under llm/ import a provider SDK.
package llm

import (
	"encoding/json"
	"fmt"
)

// Role says who authored a message. Tool results travel in their own role so
// that each adapter can place them where its wire format wants them (a user
// message of tool_result blocks for Anthropic, tool messages for OpenAI).
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation history.
type Message struct {
	Role  Role
	Parts []Part
	// enc memoises the wire encodings of a sealed message; see Sealed.
	enc *encodings
}

// Part is one piece of a message. It is a sealed sum type: one Go type per
// variant, distinguished with a type switch.
type Part interface{ isPart() }

// Text is plain text from the user or the model.
type Text struct {
	Text string
}

// Reasoning is the model's visible thinking. Signature (Anthropic) must be
// sent back unchanged with the block; Redacted carries an opaque redacted
// thinking payload instead of text. ItemID and Encrypted (OpenAI's
// Responses API) are the reasoning item's id and its encrypted content,
// which go back with the next request so that the model does not reason
// again over the same ground. Each wire sends back only what it signed
// or encrypted itself and drops the rest.
type Reasoning struct {
	Text      string
	Signature string
	Redacted  string
	ItemID    string
	Encrypted string
}

// ToolCall is a request from the model to run a tool.
type ToolCall struct {
	// ID is shiro's: unique within the session, so that results, the
	// transcript and exports pair each result with its own call.
	ID    string
	Name  string
	Input json.RawMessage
	// ProviderID is the id the provider gave the call, when shiro named it
	// otherwise (an endpoint that numbers calls per response repeats
	// "call_0"); requests send it back so the provider sees its own ids.
	ProviderID string
}

// ToolResult answers one ToolCall. Images are pictures the tool returns
// with its text (read_file on a PNG); each wire places them where it can.
type ToolResult struct {
	CallID  string
	Name    string
	Output  string
	IsError bool
	Images  []Image
}

func (Image) isPart()      {}
func (Text) isPart()       {}
func (Reasoning) isPart()  {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}

// UserText builds a user message holding one text part.
func UserText(s string) Message { return Message{Role: RoleUser, Parts: []Part{Text{Text: s}}} }

// ToolCalls returns the tool calls of an assistant message in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(ToolCall); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// PlainText joins the text parts of a message.
func (m Message) PlainText() string {
	var s string
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			s += t.Text
		}
	}
	return s
}

// wirePart is the JSON shape of a part in sessions and cassettes.
type wirePart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text,omitempty"`
	Signature  string          `json:"signature,omitempty"`
	Redacted   string          `json:"redacted,omitempty"`
	ItemID     string          `json:"itemId,omitempty"`
	Encrypted  string          `json:"encrypted,omitempty"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	CallID     string          `json:"callId,omitempty"`
	ProviderID string          `json:"providerId,omitempty"`
	Output     *string         `json:"output,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Images     []wireImage     `json:"images,omitempty"`
	Wire       string          `json:"wire,omitempty"`
	Raw        json.RawMessage `json:"raw,omitempty"`
	wireImage
}

type wireMessage struct {
	Role  Role       `json:"role"`
	Parts []wirePart `json:"parts"`
}

// MarshalJSON encodes a message with tagged parts.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, Parts: make([]wirePart, 0, len(m.Parts))}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Text:
			w.Parts = append(w.Parts, wirePart{Type: "text", Text: p.Text})
		case Reasoning:
			w.Parts = append(w.Parts, wirePart{Type: "reasoning", Text: p.Text, Signature: p.Signature, Redacted: p.Redacted,
				ItemID: p.ItemID, Encrypted: p.Encrypted})
		case ToolCall:
			w.Parts = append(w.Parts, wirePart{Type: "tool-call", ID: p.ID, Name: p.Name, Input: inputOrEmpty(p.Input), ProviderID: p.ProviderID})
		case ToolResult:
			out := p.Output
			w.Parts = append(w.Parts, wirePart{Type: "tool-result", CallID: p.CallID, Name: p.Name, Output: &out, IsError: p.IsError,
				Images: wireImages(p.Images)})
		case Image:
			w.Parts = append(w.Parts, wirePart{Type: "image", wireImage: toWireImage(p)})
		case ServerBlock:
			w.Parts = append(w.Parts, wirePart{Type: "server-block", Wire: p.Wire, Raw: p.Raw})
		default:
			return nil, fmt.Errorf("llm: cannot encode part %T", p)
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a message written by MarshalJSON.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch w.Role {
	case RoleUser, RoleAssistant, RoleTool:
	default:
		return fmt.Errorf("llm: unknown message role %q", w.Role)
	}
	m.Role = w.Role
	m.enc = nil // new parts: what was encoded before no longer holds
	m.Parts = make([]Part, 0, len(w.Parts))
	for i, p := range w.Parts {
		switch p.Type {
		case "text":
			m.Parts = append(m.Parts, Text{Text: p.Text})
		case "reasoning":
			m.Parts = append(m.Parts, Reasoning{Text: p.Text, Signature: p.Signature, Redacted: p.Redacted,
				ItemID: p.ItemID, Encrypted: p.Encrypted})
		case "tool-call":
			m.Parts = append(m.Parts, ToolCall{ID: p.ID, Name: p.Name, Input: inputOrEmpty(p.Input), ProviderID: p.ProviderID})
		case "tool-result":
			out := ""
			if p.Output != nil {
				out = *p.Output
			}
			images, err := fromWireImages(p.Images)
			if err != nil {
				return fmt.Errorf("llm: part %d: %w", i, err)
			}
			m.Parts = append(m.Parts, ToolResult{CallID: p.CallID, Name: p.Name, Output: out, IsError: p.IsError, Images: images})
		case "image":
			img, err := p.wireImage.image()
			if err != nil {
				return fmt.Errorf("llm: part %d: %w", i, err)
			}
			m.Parts = append(m.Parts, img)
		case "server-block":
			block := ServerBlock{Wire: p.Wire, Raw: p.Raw}
			if !block.wellFormed() {
				return fmt.Errorf("llm: part %d: a server-block needs a wire and its block as a JSON object", i)
			}
			m.Parts = append(m.Parts, block)
		default:
			return fmt.Errorf("llm: part %d has unknown type %q", i, p.Type)
		}
	}
	return nil
}

// inputOrEmpty keeps tool inputs valid JSON objects on the wire: providers
// reject a tool_use block whose input is missing.
func inputOrEmpty(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	return in
}
