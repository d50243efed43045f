package llmtest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Canned returns an in-memory transport that answers every model call
// with reply, streamed as the endpoint the request's path names would
// stream it. It opens no socket and records nothing: it is for
// benchmarks, which send thousands of requests with large bodies. Each
// endpoint's answer is rendered once.
func Canned(reply Reply) http.RoundTripper {
	return &canned{reply: reply, rendered: map[string]rendered{}}
}

type canned struct {
	reply    Reply
	mu       sync.Mutex
	rendered map[string]rendered
}

type rendered struct {
	header http.Header
	body   []byte
	status int
}

func (c *canned) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	path := req.URL.Path
	for _, endpoint := range []string{"/messages", "/chat/completions", "/responses"} {
		if strings.HasSuffix(path, endpoint) {
			path = "/v1" + endpoint
		}
	}
	c.mu.Lock()
	r, ok := c.rendered[path]
	if !ok {
		rec := httptest.NewRecorder()
		if write, known := writerFor(path, c.reply, modelCall{stream: true, encrypted: true}); known {
			write(rec)
		} else {
			http.Error(rec, "llmtest: unknown endpoint "+req.URL.Path, http.StatusNotFound)
		}
		r = rendered{header: rec.Header().Clone(), body: rec.Body.Bytes(), status: rec.Code}
		c.rendered[path] = r
	}
	c.mu.Unlock()
	return &http.Response{
		StatusCode: r.status, Status: http.StatusText(r.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: r.header.Clone(), Body: io.NopCloser(bytes.NewReader(r.body)), ContentLength: int64(len(r.body)),
		Request: req,
	}, nil
}
