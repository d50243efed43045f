// Package llmtest is a loopback fake of the Anthropic and OpenAI HTTP APIs for
// tests. It answers each model call from a script of replies, in order,
// speaking the real wire formats (SSE when the request asks to stream, a
// JSON body otherwise), and records every request so that tests can assert
// on the bytes that crossed the wire.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Reply is one scripted model response, or one scripted HTTP error.
type Reply struct {
	// Reasoning is streamed first, as thinking / reasoning deltas.
	Reasoning string
	// Encrypted is the opaque reasoning state a Responses API reasoning
	// item carries as encrypted_content, when the request included
	// reasoning.encrypted_content.
	Encrypted string
	// Signature accompanies Reasoning on the Anthropic wire.
	Signature string
	// Text is the answer text, streamed in Chunks pieces (default 1).
	Text   string
	Chunks int
	// ToolCalls follow the text.
	ToolCalls []ToolCall
	// Searches are web searches the provider ran itself, streamed before
	// the text (Anthropic server_tool_use and web_search_tool_result
	// blocks, Responses web_search_call items); Citations are the sources
	// the text cites (citations_delta, url_citation annotations).
	Searches  []Search
	Citations []Source
	// Usage is reported at the end; zero fields are left out.
	Usage Usage
	// Stop overrides the stop reason ("end_turn"/"stop", "max_tokens"...).
	Stop string

	// Status, when non-zero, makes the reply an HTTP error with this code,
	// the given Headers (e.g. retry-after) and an error body with Message.
	Status  int
	Headers map[string]string
	Message string

	// FinishWithLastCall sends an OpenAI chat finish_reason in the same
	// chunk as the last tool-call delta, as some compatible servers do.
	FinishWithLastCall bool

	// Fault makes a streamed reply break off or go silent (see Fault).
	Fault Fault
}

// Search is a provider-run web search: its id, query and results.
type Search struct {
	ID, Query string
	Results   []Source
}

// Source is a web page a search found or the answer cites.
type Source struct {
	URL, Title string
}

// ToolCall is a scripted tool call; Input is its JSON arguments.
type ToolCall struct {
	ID    string
	Name  string
	Input string
}

// Usage is what the fake reports: the adapters' own llm.Usage, so a test
// states the tokens in the type it then reads back. InputTokens excludes
// cache reads and writes (Anthropic's meaning); the OpenAI encoders add
// CacheRead back into prompt_tokens as that API does.
type Usage = llm.Usage

// Request is one recorded HTTP request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic map, failing the test on
// invalid JSON.
func (r Request) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body to %s is not JSON: %v\n%s", r.Path, err, r.Body)
	}
	return m
}

// Server is the fake API. Its URL is the API root including /v1, the form
// shiro's baseURL takes.
type Server struct {
	URL string
	// Models is returned by GET /v1/models.
	Models []string

	srv *httptest.Server
	// done is closed when the test ends, releasing stalled handlers so
	// that the server can close.
	done chan struct{}

	mu       sync.Mutex
	script   []Reply
	next     int
	requests []Request
	// rejectChat makes /v1/chat/completions answer with this status, to
	// exercise the Responses API fallback.
	rejectChat int
}

// New starts a fake server answering from replies; it stops at test end.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := Start(replies...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake server for code that has no testing.TB (a
// testscript command); Close stops it.
func Start(replies ...Reply) *Server {
	s := &Server{script: append([]Reply(nil), replies...), done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close releases stalled handlers, then stops the server.
func (s *Server) Close() {
	close(s.done)
	s.srv.Close()
}

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// RejectChatCompletions makes every chat completions call fail with status,
// as an endpoint that only speaks the Responses API would.
func (s *Server) RejectChatCompletions(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectChat = status
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ModelCalls returns the recorded requests that asked for a model response.
func (s *Server) ModelCalls() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost {
			out = append(out, r)
		}
	}
	return out
}

// Remaining reports how many scripted replies have not been used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	rejectChat := s.rejectChat
	s.mu.Unlock()

	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		s.serveModels(w)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "llmtest: unexpected "+r.Method+" "+r.URL.Path, http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/v1/chat/completions" && rejectChat != 0 {
		writeError(w, r.URL.Path, Reply{Status: rejectChat, Message: "this model is only supported in the Responses API"})
		return
	}
	reply, ok := s.take()
	if !ok {
		writeError(w, r.URL.Path, Reply{Status: http.StatusInternalServerError, Message: "llmtest: the script has no reply left"})
		return
	}
	if reply.Status != 0 {
		writeError(w, r.URL.Path, reply)
		return
	}
	call := modelCall{
		stream:    bytes.Contains(body, []byte(`"stream":true`)),
		encrypted: bytes.Contains(body, []byte(`"reasoning.encrypted_content"`)),
	}
	write, ok := writerFor(r.URL.Path, reply, call)
	if !ok {
		http.Error(w, "llmtest: unknown endpoint "+r.URL.Path, http.StatusNotFound)
		return
	}
	if call.stream && reply.Fault.Kind != NoFault {
		s.serveFault(w, r, reply, write)
		return
	}
	write(w)
}

// modelCall is what the fake reads from a request's body: whether to
// stream, and whether reasoning should come back encrypted.
type modelCall struct{ stream, encrypted bool }

// writerFor returns what answers a model call to path with reply.
func writerFor(path string, reply Reply, call modelCall) (func(http.ResponseWriter), bool) {
	switch path {
	case "/v1/messages":
		return func(w http.ResponseWriter) { writeAnthropic(w, reply, call.stream) }, true
	case "/v1/chat/completions":
		return func(w http.ResponseWriter) { writeChat(w, reply, call.stream) }, true
	case "/v1/responses":
		return func(w http.ResponseWriter) { writeResponses(w, reply, call.stream, call.encrypted) }, true
	}
	return nil, false
}

func (s *Server) take() (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.script) {
		return Reply{}, false
	}
	r := s.script[s.next]
	s.next++
	return r, true
}

func (s *Server) serveModels(w http.ResponseWriter) {
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
		Type   string `json:"type"`
	}
	data := []model{}
	for _, id := range s.Models {
		data = append(data, model{ID: id, Object: "model", Type: "model"})
	}
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "has_more": false})
}

// writeError answers with an error body in the shape of the API at path.
func writeError(w http.ResponseWriter, path string, r Reply) {
	for k, v := range r.Headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(r.Status)
	msg := r.Message
	if msg == "" {
		msg = http.StatusText(r.Status)
	}
	var body any
	if strings.HasSuffix(path, "/messages") {
		body = map[string]any{"type": "error", "error": map[string]any{"type": anthropicErrorType(r.Status), "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusBadRequest:
		return "invalid_request_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(fmt.Sprintf("llmtest: %v", err))
	}
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits s into n nearly equal pieces (at least one).
func chunks(s string, n int) []string {
	if n <= 1 || len(s) <= 1 {
		return []string{s}
	}
	rs := []rune(s)
	n = min(n, len(rs))
	out := make([]string, 0, n)
	size := (len(rs) + n - 1) / n
	for i := 0; i < len(rs); i += size {
		out = append(out, string(rs[i:min(i+size, len(rs))]))
	}
	return out
}
