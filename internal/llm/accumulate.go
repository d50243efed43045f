package llm

import "strings"

// Accumulator assembles the assistant message of one response from its
// stream parts, in the order the parts arrived.
type Accumulator struct {
	parts     []Part
	text      strings.Builder
	reasoning strings.Builder
	inThought bool
	finish    *Finish
}

// Add folds one stream part into the message under construction.
func (a *Accumulator) Add(p StreamPart) {
	switch p := p.(type) {
	case TextDelta:
		a.closeReasoning(ReasoningEnd{})
		a.text.WriteString(p.Text)
	case ReasoningDelta:
		a.flushText()
		a.inThought = true
		a.reasoning.WriteString(p.Text)
	case ReasoningEnd:
		a.flushText()
		a.inThought = true
		a.closeReasoning(p)
	case ToolCallDone:
		a.closeReasoning(ReasoningEnd{})
		a.flushText()
		a.parts = append(a.parts, ToolCall{ID: p.ID, Name: p.Name, Input: p.Input})
	case ServerBlock:
		a.closeReasoning(ReasoningEnd{})
		a.flushText()
		a.parts = append(a.parts, p)
	case Finish:
		f := p
		a.finish = &f
	}
}

func (a *Accumulator) flushText() {
	if a.text.Len() > 0 {
		a.parts = append(a.parts, Text{Text: a.text.String()})
		a.text.Reset()
	}
}

func (a *Accumulator) closeReasoning(end ReasoningEnd) {
	if !a.inThought {
		return
	}
	a.parts = append(a.parts, Reasoning{Text: a.reasoning.String(), Signature: end.Signature, Redacted: end.Redacted,
		ItemID: end.ItemID, Encrypted: end.Encrypted})
	a.reasoning.Reset()
	a.inThought = false
}

// Message returns the assistant message assembled so far.
func (a *Accumulator) Message() Message {
	a.closeReasoning(ReasoningEnd{})
	a.flushText()
	return Message{Role: RoleAssistant, Parts: append([]Part(nil), a.parts...)}
}

// Finish returns the response's Finish part, if one arrived.
func (a *Accumulator) Finish() (Finish, bool) {
	if a.finish == nil {
		return Finish{}, false
	}
	return *a.finish, true
}
