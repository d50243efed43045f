package llmtest

import (
	"encoding/json"
	"net/http"
)

// anthropicModel is the model name the fake reports in its messages.
const anthropicModel = "llmtest-claude"

// writeAnthropic answers a Messages API call with r, as SSE frames when the
// request asked to stream and as one Message JSON body otherwise.
func writeAnthropic(w http.ResponseWriter, r Reply, stream bool) {
	if !stream {
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(anthropicMessage(r))
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")

	start := anthropicMessage(Reply{Usage: r.Usage})
	start["stop_reason"] = nil
	start["usage"] = anthropicUsage(r.Usage, false)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	// The real API sends pings between events; the client must skip them.
	sse(w, "ping", map[string]any{"type": "ping"})

	index := 0
	if r.Reasoning != "" || r.Signature != "" {
		anthropicBlock(w, index, map[string]any{"type": "thinking", "thinking": "", "signature": ""}, func() {
			for _, piece := range chunks(r.Reasoning, max(r.Chunks, 2)) {
				if piece != "" {
					anthropicDelta(w, index, map[string]any{"type": "thinking_delta", "thinking": piece})
				}
			}
			if r.Signature != "" {
				anthropicDelta(w, index, map[string]any{"type": "signature_delta", "signature": r.Signature})
			}
		})
		index++
	}
	for _, search := range r.Searches {
		call := map[string]any{"type": "server_tool_use", "id": search.ID, "name": "web_search", "input": map[string]any{}}
		anthropicBlock(w, index, call, func() {
			input, _ := json.Marshal(map[string]string{"query": search.Query})
			for _, piece := range chunks(string(input), 2) {
				anthropicDelta(w, index, map[string]any{"type": "input_json_delta", "partial_json": piece})
			}
		})
		index++
		anthropicBlock(w, index, anthropicSearchResult(search), func() {})
		index++
	}
	if r.Text != "" {
		anthropicBlock(w, index, map[string]any{"type": "text", "text": ""}, func() {
			for _, piece := range chunks(r.Text, r.Chunks) {
				anthropicDelta(w, index, map[string]any{"type": "text_delta", "text": piece})
			}
			for _, c := range r.Citations {
				anthropicDelta(w, index, map[string]any{"type": "citations_delta", "citation": map[string]any{
					"type": "web_search_result_location", "url": c.URL, "title": c.Title,
					"cited_text": "…", "encrypted_index": "enc-" + c.URL,
				}})
			}
		})
		index++
	}
	for _, call := range r.ToolCalls {
		block := map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": map[string]any{}}
		anthropicBlock(w, index, block, func() {
			// The API streams arguments as fragments that are not JSON on
			// their own; at least two pieces make the client assemble them.
			for _, piece := range chunks(call.Input, max(r.Chunks, 2)) {
				anthropicDelta(w, index, map[string]any{"type": "input_json_delta", "partial_json": piece})
			}
		})
		index++
	}

	sse(w, "message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStop(r), "stop_sequence": nil},
		"usage": anthropicDeltaUsage(r.Usage),
	})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// anthropicSearchResult is a web_search_tool_result block, whole in its
// start event as the API sends it.
func anthropicSearchResult(search Search) map[string]any {
	results := []any{}
	for _, res := range search.Results {
		results = append(results, map[string]any{
			"type": "web_search_result", "url": res.URL, "title": res.Title,
			"encrypted_content": "enc-" + res.URL, "page_age": nil,
		})
	}
	return map[string]any{"type": "web_search_tool_result", "tool_use_id": search.ID, "content": results}
}

// anthropicBlock frames one content block: start, the deltas body writes,
// stop.
func anthropicBlock(w http.ResponseWriter, index int, block map[string]any, body func()) {
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": block})
	body()
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
}

func anthropicDelta(w http.ResponseWriter, index int, delta map[string]any) {
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": delta})
}

// anthropicMessage is the complete Message the non-streaming API returns.
func anthropicMessage(r Reply) map[string]any {
	content := []any{}
	if r.Reasoning != "" || r.Signature != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": r.Reasoning, "signature": r.Signature})
	}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for _, call := range r.ToolCalls {
		// A whole body must be valid JSON, so arguments that are not (a
		// script exercising the streaming error path) become an empty object.
		input := json.RawMessage(call.Input)
		if !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": input})
	}
	return map[string]any{
		"id":            "msg_llmtest",
		"type":          "message",
		"role":          "assistant",
		"model":         anthropicModel,
		"content":       content,
		"stop_reason":   anthropicStop(r),
		"stop_sequence": nil,
		"usage":         anthropicUsage(r.Usage, true),
	}
}

// anthropicUsage is the usage object of a message. input_tokens is always
// present, as on the real API; the cache counters only when non-zero.
// output_tokens belongs to the final count (message_delta or a whole body).
func anthropicUsage(u Usage, final bool) map[string]any {
	m := map[string]any{"input_tokens": u.InputTokens}
	if u.CacheWriteTokens != 0 {
		m["cache_creation_input_tokens"] = u.CacheWriteTokens
	}
	if u.CacheReadTokens != 0 {
		m["cache_read_input_tokens"] = u.CacheReadTokens
	}
	if final {
		m["output_tokens"] = u.OutputTokens
		if u.WebSearches != 0 {
			m["server_tool_use"] = map[string]any{"web_search_requests": u.WebSearches}
		}
	} else {
		// message_start carries a provisional output count.
		m["output_tokens"] = min(u.OutputTokens, 1)
	}
	return m
}

// anthropicDeltaUsage is message_delta's usage: the final output count,
// and the provider's searches, which the API counts there for the whole
// message.
func anthropicDeltaUsage(u Usage) map[string]any {
	m := map[string]any{"output_tokens": u.OutputTokens}
	if u.WebSearches != 0 {
		m["server_tool_use"] = map[string]any{"web_search_requests": u.WebSearches}
	}
	return m
}

func anthropicStop(r Reply) string {
	switch {
	case r.Stop != "":
		return r.Stop
	case len(r.ToolCalls) > 0:
		return "tool_use"
	}
	return "end_turn"
}
