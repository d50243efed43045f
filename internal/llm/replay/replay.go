// Package replay records model responses to a cassette and plays them back.
// A cassette is JSON lines, one model response per line:
//
//	{"parts":[{"type":"text-delta","text":"Hi"},{"type":"finish","reason":"end","usage":{…}}]}
//
// `--record FILE` writes one; `--provider replay --cassette FILE` and
// `shiro demo` answer from one, in order.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Response is one recorded model response.
type Response []llm.StreamPart

type line struct {
	Parts []json.RawMessage `json:"parts"`
}

// Parse reads a cassette. name is used in error messages.
func Parse(name string, r io.Reader) ([]Response, error) {
	var out []Response
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var l line
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a cassette line (want {\"parts\":[…]}): %w", name, n, err)
		}
		resp := make(Response, 0, len(l.Parts))
		for i, p := range l.Parts {
			part, err := llm.UnmarshalStreamPart(p)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: part %d: %w", name, n, i+1, err)
			}
			resp = append(resp, part)
		}
		if len(resp) == 0 {
			return nil, fmt.Errorf("%s:%d: a response needs at least one part", name, n)
		}
		if _, ok := resp[len(resp)-1].(llm.Finish); !ok {
			resp = append(resp, llm.Finish{Reason: llm.StopEnd})
		}
		out = append(out, resp)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Load reads a cassette file.
func Load(path string) ([]Response, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	defer f.Close()
	return Parse(path, f)
}

// Provider answers model calls from recorded responses, in order.
type Provider struct {
	name string
	mu   sync.Mutex
	resp []Response
	next int
}

// New returns a provider that plays resp in order; name appears in the
// error when the cassette runs out.
func New(name string, resp []Response) *Provider {
	return &Provider{name: name, resp: resp}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "replay" }

// Remaining reports how many responses are left.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.resp) - p.next
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, _ *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		p.mu.Lock()
		if p.next >= len(p.resp) {
			n := len(p.resp)
			p.mu.Unlock()
			yield(nil, fmt.Errorf("cassette %s ran out: it holds %d responses and the session asked for another", p.name, n))
			return
		}
		r := p.resp[p.next]
		p.next++
		p.mu.Unlock()
		for _, part := range r {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(part, nil) {
				return
			}
		}
	}
}

// Recorder wraps a provider and appends each complete response to w as one
// cassette line. Notices (retries) are not recorded: they belong to the
// call, not to the model's answer.
type Recorder struct {
	inner llm.Provider
	mu    sync.Mutex
	w     io.Writer
}

// Record wraps p so that its responses are written to w.
func Record(p llm.Provider, w io.Writer) *Recorder { return &Recorder{inner: p, w: w} }

// Name implements llm.Provider.
func (r *Recorder) Name() string { return r.inner.Name() }

// Stream implements llm.Provider.
func (r *Recorder) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		var parts []json.RawMessage
		complete := false
		for part, err := range r.inner.Stream(ctx, req) {
			if err != nil {
				yield(nil, err)
				return
			}
			if _, isNotice := part.(llm.Notice); !isNotice {
				b, merr := llm.MarshalStreamPart(part)
				if merr != nil {
					yield(nil, merr)
					return
				}
				parts = append(parts, b)
			}
			if _, ok := part.(llm.Finish); ok {
				complete = true
			}
			if !yield(part, nil) {
				return
			}
		}
		if complete {
			if err := r.write(parts); err != nil {
				yield(nil, err)
			}
		}
	}
}

func (r *Recorder) write(parts []json.RawMessage) error {
	b, err := json.Marshal(line{Parts: parts})
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("recording cassette: %w", err)
	}
	return nil
}
