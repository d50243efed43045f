package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/shiro-neko/shiro/internal/llm"
)

// responseEvent is what this adapter reads of a Responses API stream
// event. Decoding into it, instead of into the SDK's union of every event
// type, skips what nobody reads: each response.* event repeats the whole
// response, instructions and tool definitions included, and decoding
// that three times a step through the SDK's reflection cost more than
// the rest of the step.
type responseEvent struct {
	Type         string         `json:"type"`
	Delta        lenientString  `json:"delta"`
	ItemID       string         `json:"item_id"`
	SummaryIndex int64          `json:"summary_index"`
	Item         outputItem     `json:"item"`
	Response     responseObject `json:"response"`
	Code         lenientString  `json:"code"`
	Message      string         `json:"message"`
	Annotation   annotation     `json:"annotation"`
}

// annotation is what this adapter reads of an output text annotation: a
// url_citation's page (other kinds carry no URL and are not listed).
type annotation struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// outputItem is an output item of a response.
type outputItem struct {
	Type             string        `json:"type"`
	ID               string        `json:"id"`
	CallID           string        `json:"call_id"`
	Name             string        `json:"name"`
	Arguments        lenientString `json:"arguments"`
	EncryptedContent string        `json:"encrypted_content"`
	// Status and Action are a web_search_call's.
	Status string          `json:"status"`
	Action json.RawMessage `json:"action"`
	// Content is a message's, for the annotations on its text.
	Content []struct {
		Annotations []annotation `json:"annotations"`
	} `json:"content"`
}

// responseObject is the response an event carries: its usage, why it
// stopped short, how it failed.
type responseObject struct {
	Usage struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens     int64 `json:"cached_tokens"`
			CacheWriteTokens int64 `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
	IncompleteDetails struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error struct {
		Code    lenientString `json:"code"`
		Message string        `json:"message"`
	} `json:"error"`
}

// lenientString is a JSON string, or empty for any other JSON value: a
// field that some event types fill with an object or null.
type lenientString string

func (l *lenientString) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		*l = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = lenientString(s)
	return nil
}

// streamResponses runs one Responses API call, yielding everything.
func (p *Provider) streamResponses(ctx context.Context, req *llm.Request, yield func(llm.StreamPart, error) bool) {
	body, err := p.responsesBody(req)
	if err != nil {
		yield(nil, err)
		return
	}
	raw, err := p.post(ctx, "responses", body)
	if err != nil {
		yield(nil, err)
		return
	}
	events := ssestream.NewStream[responseEvent](ssestream.NewDecoder(raw), nil)
	defer events.Close()

	s := responsesStream{emitter: emitter{yield: yield}, items: map[string]int{}}
	for events.Next() {
		if !s.add(events.Current()) {
			return
		}
	}
	if err := events.Err(); err != nil {
		s.fail(bodyError(ctx, err))
		return
	}
	if !s.done {
		s.fail(&llm.StreamError{Provider: providerName, Err: errors.New("the stream ended before response.completed")})
	}
}

// responsesStream turns Responses API events into stream parts. Calls are
// indexed in the order their items were announced; each collects its
// argument deltas, in case a server's done item leaves the arguments out.
type responsesStream struct {
	emitter
	calls []pendingCall
	// items maps a function_call item id to its index in calls.
	items map[string]int
	done  bool
	used  bool // a function call completed
	// sources are the response's citations, listed after its text.
	sources llm.Sources
	// searches counts the web_search_call items: the Responses API
	// charges per call and its usage object does not count them.
	searches int
}

func (s *responsesStream) add(ev responseEvent) bool {
	switch ev.Type {
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		s.reasoning = true
		return s.emit(llm.ReasoningDelta{Text: string(ev.Delta)})
	case "response.reasoning_summary_part.added":
		// Summary parts are paragraphs; keep them apart.
		if ev.SummaryIndex > 0 {
			s.reasoning = true
			return s.emit(llm.ReasoningDelta{Text: "\n\n"})
		}
	case "response.output_text.delta", "response.refusal.delta":
		return s.endReasoning() && s.emit(llm.TextDelta{Text: string(ev.Delta)})
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			s.items[ev.Item.ID] = len(s.calls)
			s.calls = append(s.calls, pendingCall{id: ev.Item.CallID, name: ev.Item.Name})
			if ev.Item.Name == "" {
				return true // announced when its done item names it
			}
			return s.endReasoning() && s.start(&s.calls[len(s.calls)-1])
		}
	case "response.function_call_arguments.delta":
		if i, ok := s.items[ev.ItemID]; ok && ev.Delta != "" {
			s.calls[i].args = append(s.calls[i].args, ev.Delta...)
			if s.calls[i].started {
				return s.emit(llm.ToolInputDelta{ID: s.calls[i].id, Delta: string(ev.Delta)})
			}
		}
	case "response.output_text.annotation.added":
		s.sources.Add(llm.Citation{URL: ev.Annotation.URL, Title: ev.Annotation.Title})
	case "response.output_item.done":
		return s.itemDone(ev.Item)
	case "response.completed":
		return s.complete(ev.Response, "")
	case "response.incomplete":
		return s.complete(ev.Response, ev.Response.IncompleteDetails.Reason)
	case "response.failed":
		return s.fail(responseFailure(string(ev.Response.Error.Code), ev.Response.Error.Message))
	case "error":
		return s.fail(responseFailure(string(ev.Code), ev.Message))
	}
	return true
}

func (s *responsesStream) itemDone(item outputItem) bool {
	switch item.Type {
	case "reasoning":
		// The item closes the reasoning with what the next request must
		// send back: its id and, with store off, its encrypted content.
		if !s.reasoning && item.EncryptedContent == "" {
			return true
		}
		s.reasoning = false
		return s.emit(llm.ReasoningEnd{ItemID: item.ID, Encrypted: item.EncryptedContent})
	case "function_call":
		i, ok := s.items[item.ID]
		if !ok {
			// A server that skipped output_item.added.
			s.items[item.ID] = len(s.calls)
			s.calls = append(s.calls, pendingCall{id: item.CallID})
			i = len(s.calls) - 1
		}
		call := &s.calls[i]
		if call.name == "" {
			call.name = item.Name
		}
		if call.name == "" {
			return s.fail(errors.New("openai: the model sent a function call without a name"))
		}
		if !call.started && (!s.endReasoning() || !s.start(call)) {
			return false
		}
		args := string(item.Arguments)
		if args == "" {
			args = string(call.args)
		}
		s.used = true
		return s.emit(llm.ToolCallDone{ID: call.id, Name: call.name, Input: toolInput(args)})
	case "message":
		// A server that does not stream annotations still lists them here.
		for _, c := range item.Content {
			for _, a := range c.Annotations {
				s.sources.Add(llm.Citation{URL: a.URL, Title: a.Title})
			}
		}
	case "web_search_call":
		return s.webSearchDone(item)
	}
	return true
}

// webSearchDone keeps a search the provider ran as its item, which goes
// back with the next request, and tells the person about it: the search
// did not pass shiro's gate.
func (s *responsesStream) webSearchDone(item outputItem) bool {
	action := item.Action
	if len(action) == 0 {
		action = json.RawMessage(`{"type":"search"}`)
	}
	status := item.Status
	if status == "" {
		status = "completed"
	}
	raw, err := json.Marshal(struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Status string          `json:"status"`
		Action json.RawMessage `json:"action"`
	}{item.Type, item.ID, status, action})
	if err != nil {
		return s.fail(fmt.Errorf("openai: keeping a web search call: %w", err))
	}
	s.searches++
	if !s.endReasoning() || !s.emit(llm.ServerBlock{Wire: llm.WireResponses, Raw: raw}) {
		return false
	}
	return s.emit(llm.Notice{Text: llm.HostedNotice("OpenAI", "web_search", action)})
}

// complete ends the stream with the response's usage. incomplete is the
// reason a response stopped short, empty when it completed.
func (s *responsesStream) complete(r responseObject, incomplete string) bool {
	if !s.endReasoning() {
		return false
	}
	s.done = true
	if list := s.sources.List(); list != "" && !s.emit(llm.TextDelta{Text: list}) {
		return false
	}
	reason := llm.StopEnd
	switch {
	case incomplete == "max_output_tokens":
		reason = llm.StopMaxTokens
	case incomplete != "":
		reason = llm.StopOther
	case s.used:
		reason = llm.StopToolUse
	}
	u := r.Usage
	usage := neutralUsage(u.InputTokens, u.OutputTokens, u.InputTokensDetails.CachedTokens, u.InputTokensDetails.CacheWriteTokens)
	usage.WebSearches = s.searches
	s.emit(llm.Finish{Reason: reason, Usage: usage})
	return false
}

// responseFailure converts a failure reported inside the stream. Codes
// that name a passing condition become the matching APIError, so that the
// retry wrapper treats them like the HTTP status would be treated.
func responseFailure(code, message string) error {
	if message == "" {
		message = code
	}
	switch code {
	case "rate_limit_exceeded":
		return &llm.APIError{Provider: providerName, Status: http.StatusTooManyRequests, Message: message}
	case "server_error":
		return &llm.APIError{Provider: providerName, Status: http.StatusInternalServerError, Message: message}
	}
	return fmt.Errorf("openai: the response failed: %s", clip(message))
}
