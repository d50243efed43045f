package llmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// openaiModel is the model name the fake reports in its OpenAI answers.
const openaiModel = "llmtest-gpt"

// The fake's response ids are fixed: each reply is a separate HTTP exchange,
// so nothing needs them to be unique.
const (
	chatCompletionID = "chatcmpl-llmtest"
	responseID       = "resp_llmtest"
	createdAt        = 1_700_000_000
)

// writeChat answers a chat completions call with r: SSE chunks ending in
// `data: [DONE]` when the request asked to stream, one chat.completion JSON
// body otherwise.
func writeChat(w http.ResponseWriter, r Reply, stream bool) {
	if !stream {
		openaiJSON(w, chatCompletion(r))
		return
	}
	openaiSSEHeaders(w)
	chunk := func(delta map[string]any, finish any) {
		sse(w, "", chatChunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}, nil))
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	// DeepSeek, OpenRouter and vLLM stream thinking in a field the official
	// API does not have; clients read it from the delta's extra fields.
	if r.Reasoning != "" {
		for _, piece := range chunks(r.Reasoning, max(r.Chunks, 2)) {
			chunk(map[string]any{"reasoning_content": piece}, nil)
		}
	}
	if r.Text != "" {
		for _, piece := range chunks(r.Text, r.Chunks) {
			chunk(map[string]any{"content": piece}, nil)
		}
	}
	finish := chatFinishReason(r)
	finished := false
	for i, call := range r.ToolCalls {
		// The first delta names the call; the arguments follow in pieces
		// that are not JSON on their own.
		pieces := chunks(call.Input, max(r.Chunks, 2))
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": chatCallID(call, i), "type": "function",
			"function": map[string]any{"name": call.Name, "arguments": ""},
		}}}, nil)
		for j, piece := range pieces {
			var reason any
			if r.FinishWithLastCall && i == len(r.ToolCalls)-1 && j == len(pieces)-1 {
				reason, finished = finish, true
			}
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece},
			}}}, reason)
		}
	}
	if !finished {
		chunk(map[string]any{}, finish)
	}
	sse(w, "", chatChunk([]any{}, chatUsage(r.Usage)))
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flushWriter(w)
}

// chatCompletion is the non-streaming chat answer.
func chatCompletion(r Reply) map[string]any {
	message := map[string]any{"role": "assistant", "content": r.Text, "refusal": nil}
	if r.Text == "" {
		message["content"] = nil
	}
	if r.Reasoning != "" {
		message["reasoning_content"] = r.Reasoning
	}
	if len(r.ToolCalls) > 0 {
		calls := make([]any, 0, len(r.ToolCalls))
		for i, call := range r.ToolCalls {
			calls = append(calls, map[string]any{
				"id": chatCallID(call, i), "type": "function",
				"function": map[string]any{"name": call.Name, "arguments": call.Input},
			})
		}
		message["tool_calls"] = calls
	}
	return map[string]any{
		"id": chatCompletionID, "object": "chat.completion", "created": createdAt, "model": openaiModel,
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": chatFinishReason(r), "logprobs": nil}},
		"usage":   chatUsage(r.Usage),
	}
}

func chatChunk(choices []any, usage any) map[string]any {
	return map[string]any{
		"id": chatCompletionID, "object": "chat.completion.chunk", "created": createdAt, "model": openaiModel,
		"system_fingerprint": "fp_llmtest", "choices": choices, "usage": usage,
	}
}

// chatUsage reports tokens the way chat completions does: prompt_tokens
// includes the cached tokens, which are repeated in the details.
func chatUsage(u Usage) map[string]any {
	prompt := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	details := map[string]any{"cached_tokens": u.CacheReadTokens}
	if u.CacheWriteTokens > 0 {
		details["cache_write_tokens"] = u.CacheWriteTokens
	}
	return map[string]any{
		"prompt_tokens": prompt, "completion_tokens": u.OutputTokens, "total_tokens": prompt + u.OutputTokens,
		"prompt_tokens_details": details,
	}
}

// chatFinishReason maps the script's stop reason, which tests may write in
// either API's vocabulary, to a chat completions finish_reason.
func chatFinishReason(r Reply) string {
	switch r.Stop {
	case "":
		if len(r.ToolCalls) > 0 {
			return "tool_calls"
		}
		return "stop"
	case "end_turn", "end":
		return "stop"
	case "max_tokens", "max_output_tokens":
		return "length"
	case "tool_use":
		return "tool_calls"
	}
	return r.Stop
}

func chatCallID(call ToolCall, i int) string {
	if call.ID != "" {
		return call.ID
	}
	return fmt.Sprintf("call_%d", i)
}

// writeResponses answers a Responses API call with r: the real sequence of
// named SSE events when the request asked to stream, one response object
// otherwise.
//
// encrypted says whether the request included reasoning.encrypted_content:
// only then does a reasoning item carry the reply's Encrypted state, as
// the real API returns it only when asked.
func writeResponses(w http.ResponseWriter, r Reply, stream, encrypted bool) {
	if !stream {
		openaiJSON(w, responseObject(r, responseOutput(r, encrypted)))
		return
	}
	openaiSSEHeaders(w)
	seq := 0
	event := func(name string, fields map[string]any) {
		fields["type"] = name
		fields["sequence_number"] = seq
		seq++
		sse(w, name, fields)
	}
	created := responseObject(Reply{}, []any{})
	created["status"] = "in_progress"
	created["usage"] = nil
	event("response.created", map[string]any{"response": created})
	event("response.in_progress", map[string]any{"response": created})

	output := responseOutput(r, encrypted)
	for index, item := range output {
		item := item.(map[string]any)
		id := item["id"]
		event("response.output_item.added", map[string]any{"output_index": index, "item": pendingItem(item)})
		switch item["type"] {
		case "reasoning":
			if r.Reasoning == "" {
				break // reasoning without a summary: the item alone
			}
			part := map[string]any{"type": "summary_text", "text": ""}
			at := map[string]any{"item_id": id, "output_index": index, "summary_index": 0}
			event("response.reasoning_summary_part.added", withField(at, "part", part))
			for _, piece := range chunks(r.Reasoning, max(r.Chunks, 2)) {
				event("response.reasoning_summary_text.delta", withField(at, "delta", piece))
			}
			event("response.reasoning_summary_text.done", withField(at, "text", r.Reasoning))
			event("response.reasoning_summary_part.done", withField(at, "part", map[string]any{"type": "summary_text", "text": r.Reasoning}))
		case "message":
			at := map[string]any{"item_id": id, "output_index": index, "content_index": 0}
			event("response.content_part.added", withField(at, "part", outputText("")))
			for _, piece := range chunks(r.Text, r.Chunks) {
				event("response.output_text.delta", withField(withField(at, "delta", piece), "logprobs", []any{}))
			}
			for i, a := range urlCitations(r) {
				event("response.output_text.annotation.added", withField(withField(at, "annotation_index", i), "annotation", a))
			}
			event("response.output_text.done", withField(withField(at, "text", r.Text), "logprobs", []any{}))
			event("response.content_part.done", withField(at, "part", withField(outputText(r.Text), "annotations", urlCitations(r))))
		case "function_call":
			at := map[string]any{"item_id": id, "output_index": index}
			args := item["arguments"].(string)
			for _, piece := range chunks(args, max(r.Chunks, 2)) {
				event("response.function_call_arguments.delta", withField(at, "delta", piece))
			}
			event("response.function_call_arguments.done", withField(withField(at, "arguments", args), "name", item["name"]))
		}
		event("response.output_item.done", map[string]any{"output_index": index, "item": item})
	}
	final := responseObject(r, output)
	if final["status"] == "incomplete" {
		event("response.incomplete", map[string]any{"response": final})
		return
	}
	event("response.completed", map[string]any{"response": final})
}

// responseOutput lists the output items of r in the order the API emits
// them: reasoning, the message, then one function_call per tool call.
func responseOutput(r Reply, encrypted bool) []any {
	var output []any
	if r.Reasoning != "" || r.Encrypted != "" {
		summary := []any{}
		if r.Reasoning != "" {
			summary = append(summary, map[string]any{"type": "summary_text", "text": r.Reasoning})
		}
		item := map[string]any{"type": "reasoning", "id": reasoningID(r), "summary": summary}
		if encrypted && r.Encrypted != "" {
			item["encrypted_content"] = r.Encrypted
		}
		output = append(output, item)
	}
	for _, search := range r.Searches {
		output = append(output, map[string]any{
			"type": "web_search_call", "id": search.ID, "status": "completed",
			"action": map[string]any{"type": "search", "query": search.Query},
		})
	}
	if r.Text != "" {
		output = append(output, map[string]any{
			"type": "message", "id": "msg_llmtest", "role": "assistant", "status": "completed",
			"content": []any{withField(outputText(r.Text), "annotations", urlCitations(r))},
		})
	}
	for i, call := range r.ToolCalls {
		output = append(output, map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_llmtest_%d", i), "call_id": chatCallID(call, i),
			"name": call.Name, "arguments": call.Input, "status": "completed",
		})
	}
	return output
}

// reasoningID names a reply's reasoning item after its content, so that
// the items of different replies differ as the real API's do.
func reasoningID(r Reply) string {
	sum := sha256.Sum256([]byte(r.Reasoning + "\x00" + r.Encrypted))
	return "rs_" + hex.EncodeToString(sum[:6])
}

// pendingItem is how an output item looks when it is first announced:
// in progress and still empty.
func pendingItem(item map[string]any) map[string]any {
	pending := withField(item, "status", "in_progress")
	switch item["type"] {
	case "reasoning":
		pending["summary"] = []any{}
		delete(pending, "status")
	case "message":
		pending["content"] = []any{}
	case "function_call":
		pending["arguments"] = ""
	}
	return pending
}

// urlCitations are the url_citation annotations of r's text, each over
// the whole text.
func urlCitations(r Reply) []any {
	out := []any{}
	for _, c := range r.Citations {
		out = append(out, map[string]any{"type": "url_citation", "url": c.URL, "title": c.Title,
			"start_index": 0, "end_index": len(r.Text)})
	}
	return out
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

// responseObject is a Responses API response holding output. A max-tokens
// stop makes it incomplete, as the API reports a truncated answer.
func responseObject(r Reply, output []any) map[string]any {
	status, incomplete := "completed", any(nil)
	if reason := chatFinishReason(r); reason == "length" {
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	} else if reason == "content_filter" {
		status, incomplete = "incomplete", map[string]any{"reason": "content_filter"}
	}
	u := r.Usage
	input := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	return map[string]any{
		"id": responseID, "object": "response", "created_at": createdAt, "model": openaiModel,
		"status": status, "incomplete_details": incomplete, "error": nil,
		"output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		"temperature": 1, "top_p": 1, "store": false, "instructions": nil, "metadata": map[string]any{},
		"usage": map[string]any{
			"input_tokens":          input,
			"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens, "cache_write_tokens": u.CacheWriteTokens},
			"output_tokens":         u.OutputTokens,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          input + u.OutputTokens,
		},
	}
}

// withField returns a copy of m with key set to v.
func withField(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, val := range m {
		out[k] = val
	}
	out[key] = v
	return out
}

func openaiSSEHeaders(w http.ResponseWriter) {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
}

func openaiJSON(w http.ResponseWriter, body any) {
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func flushWriter(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
