package openai

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/shiro-neko/shiro/internal/llm"
)

// emitter passes stream parts to the consumer for both endpoints, and
// remembers what the stream has open: a consumer that stopped, a block of
// reasoning not yet closed.
type emitter struct {
	yield     func(llm.StreamPart, error) bool
	stopped   bool
	reasoning bool
}

// pendingCall is what has arrived of one tool call.
type pendingCall struct {
	id, name string
	// kind is the call's type as a chat delta gave it ("function").
	kind    string
	started bool
	// args collects the call's argument fragments.
	args []byte
}

// emit passes a part on; it returns false once the consumer has stopped.
func (e *emitter) emit(part llm.StreamPart) bool {
	if !e.stopped && !e.yield(part, nil) {
		e.stopped = true
	}
	return !e.stopped
}

// fail ends the stream with err; it returns false so that callers can
// return its result.
func (e *emitter) fail(err error) bool {
	if !e.stopped {
		e.yield(nil, err)
		e.stopped = true
	}
	return false
}

// endReasoning closes an open reasoning block before other output.
func (e *emitter) endReasoning() bool {
	if !e.reasoning {
		return true
	}
	e.reasoning = false
	return e.emit(llm.ReasoningEnd{})
}

// start announces a call once its name is known.
func (e *emitter) start(call *pendingCall) bool {
	if call.id == "" {
		// Some local servers leave ids out; results must still find
		// their call.
		call.id = "call_" + uuid.NewString()
	}
	call.started = true
	return e.emit(llm.ToolInputStart{ID: call.id, Name: call.name})
}

// toolInput is a call's arguments as JSON. Arguments that are not JSON
// (a model's slip, or a cut-off answer) are kept as a JSON string, so the
// history stays valid and the tool reports the mistake to the model.
func toolInput(args string) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	quoted, _ := json.Marshal(args)
	return quoted
}
