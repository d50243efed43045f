package prompt_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// The simulation of Anthropic's prompt cache that the caching tests and
// benchmarks measure with. It follows the documented rules:
//
//   - the prompt is the sequence tools → system → messages, cut into
//     blocks (one per tool, system block and message content block);
//   - a cache_control breakpoint makes the prefix ending at its block a
//     cache entry (a write, unless it was already cached);
//   - a request reads the longest cached prefix that ends at one of its
//     breakpoints or at one of the 20 block boundaries before each (the
//     lookback); the marker itself is not part of what is matched, which
//     is what lets a breakpoint move forward as the conversation grows;
//   - input_tokens counts what comes after the last breakpoint, cache
//     writes what lies between the cached prefix and the last breakpoint;
//   - a token is about four bytes of the serialised blocks.
//
// The counts are computed from the request bodies that crossed the wire,
// so the comparison of placements is honest: nothing is assumed about
// where the adapter put the volatile text.

const (
	lookbackBlocks = 20
	bytesPerToken  = 4
)

// simUsage is the simulated usage of one request, in tokens.
type simUsage struct {
	Input, Write, Read int
	// Ideal is what any breakpoint placement could have read at best:
	// the longest prefix, at any block boundary, seen in an earlier
	// request. Read == Ideal means nothing cached was written again.
	Ideal int
	// SystemBytes and ToolBytes are the sizes of the system prompt's text
	// and of the tool definitions as serialised JSON.
	SystemBytes, ToolBytes int
}

type cacheSim struct {
	// movingOnly ignores every message breakpoint but the last one: the
	// requests are read as the adapter sent them before it learned the
	// lookback breakpoint. The markers are not part of the matched bytes,
	// so these are exactly the bytes that adapter sent.
	movingOnly bool

	mu      sync.Mutex
	entries map[[32]byte]bool
	seen    map[[32]byte]bool // every prefix of every request so far
	log     []simUsage
}

func newCacheSim() *cacheSim {
	return &cacheSim{entries: map[[32]byte]bool{}, seen: map[[32]byte]bool{}}
}

// simBlock is one cacheable unit of a request.
type simBlock struct {
	bytes      []byte
	breakpoint bool
	message    bool // a message content block, not a tool or system block
}

// blocks cuts an Anthropic Messages request body into blocks, in prefix
// order, with the cache_control markers removed from the matched bytes.
func blocks(t testing.TB, body []byte) (out []simBlock, sizes simUsage) {
	var req struct {
		Tools    []map[string]any `json:"tools"`
		System   []map[string]any `json:"system"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	add := func(prefix string, message bool, m map[string]any) {
		_, bp := m["cache_control"]
		delete(m, "cache_control")
		b, err := json.Marshal(m) // map keys sort: deterministic bytes
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, simBlock{bytes: append([]byte(prefix), b...), breakpoint: bp, message: message})
	}
	for _, tool := range req.Tools {
		add("tool:", false, tool)
		sizes.ToolBytes += len(out[len(out)-1].bytes) - len("tool:")
	}
	for _, s := range req.System {
		if text, ok := s["text"].(string); ok {
			sizes.SystemBytes += len(text)
		}
		add("system:", false, s)
	}
	for i, m := range req.Messages {
		for j, c := range m.Content {
			// The role and message index make message boundaries part of
			// the identity of a prefix.
			add(fmt.Sprintf("%s:%d:%d:", m.Role, i, j), true, c)
		}
	}
	return out, sizes
}

// observe simulates one request and returns its usage.
func (c *cacheSim) observe(t testing.TB, body []byte) simUsage {
	bs, u := blocks(t, body)
	if c.movingOnly {
		dropEarlierMessageBreakpoints(bs)
	}
	ends := make([]int, len(bs))      // byte offset at the end of each block
	keys := make([][32]byte, len(bs)) // chained hash of the prefix ending there
	total, prev := 0, [32]byte{}
	var bps []int
	for i, b := range bs {
		total += len(b.bytes)
		ends[i] = total
		inner := sha256.Sum256(b.bytes)
		keys[i] = sha256.Sum256(append(prev[:], inner[:]...))
		prev = keys[i]
		if b.breakpoint {
			bps = append(bps, i)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	readBytes := 0
	for _, bp := range bps {
		for j := bp; j >= 0 && j >= bp-lookbackBlocks; j-- {
			if c.entries[keys[j]] {
				readBytes = max(readBytes, ends[j])
				break
			}
		}
	}
	cachedEnd := 0
	if len(bps) > 0 {
		cachedEnd = ends[bps[len(bps)-1]]
	}
	for _, bp := range bps {
		c.entries[keys[bp]] = true
	}
	ideal := 0
	for i := range keys {
		if c.seen[keys[i]] {
			ideal = ends[i]
		}
	}
	for _, k := range keys {
		c.seen[k] = true
	}
	u.Ideal = ideal / bytesPerToken
	u.Read = readBytes / bytesPerToken
	u.Write = max(cachedEnd-readBytes, 0) / bytesPerToken
	u.Input = (total - max(cachedEnd, readBytes)) / bytesPerToken
	c.log = append(c.log, u)
	return u
}

// dropEarlierMessageBreakpoints unmarks every message block but the last
// marked one.
func dropEarlierMessageBreakpoints(bs []simBlock) {
	last := true
	for i := len(bs) - 1; i >= 0; i-- {
		if bs[i].message && bs[i].breakpoint {
			bs[i].breakpoint = last
			last = false
		}
	}
}

// ratio is read / (input + write + read) over the requests from index
// from on.
func (c *cacheSim) ratio(from int) float64 {
	return c.ratioOf(from, func(u simUsage) int { return u.Read })
}

// idealRatio is the ratio the best possible placement would reach.
func (c *cacheSim) idealRatio(from int) float64 {
	return c.ratioOf(from, func(u simUsage) int { return u.Ideal })
}

func (c *cacheSim) ratioOf(from int, read func(simUsage) int) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var hit, all int
	for _, u := range c.log[from:] {
		hit += read(u)
		all += u.Input + u.Write + u.Read
	}
	if all == 0 {
		return 0
	}
	return float64(hit) / float64(all)
}

func (c *cacheSim) requests() []simUsage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]simUsage(nil), c.log...)
}

// cachingServer fronts an llmtest server: for each Messages call it runs
// the simulation on the request body, gives the next scripted reply the
// simulated usage, and forwards the call, so the usage the agent reports
// in its done event is the simulation's.
type cachingServer struct {
	URL      string
	upstream *llmtest.Server
	sim      *cacheSim

	mu     sync.Mutex
	script []llmtest.Reply
}

func newCachingServer(t testing.TB, replies ...llmtest.Reply) *cachingServer {
	t.Helper()
	cs := &cachingServer{upstream: llmtest.New(t), sim: newCacheSim(), script: replies}
	base := strings.TrimSuffix(cs.upstream.URL, "/v1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
			u := cs.sim.observe(t, body)
			cs.mu.Lock()
			reply := llmtest.Reply{Text: "(script exhausted)"}
			if len(cs.script) > 0 {
				reply, cs.script = cs.script[0], cs.script[1:]
			}
			cs.mu.Unlock()
			reply.Usage = llmtest.Usage{InputTokens: u.Input, CacheReadTokens: u.Read, CacheWriteTokens: u.Write, OutputTokens: 20}
			cs.upstream.Push(reply)
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	cs.URL = srv.URL + "/v1"
	return cs
}
