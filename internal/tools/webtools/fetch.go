package webtools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Limits of web_fetch.
const (
	MaxRedirects = 5
	FetchTimeout = 20 * time.Second
	// BodyCap is the most bytes read from a response body.
	BodyCap = 512 << 10

	MinChars     = 500
	MaxChars     = 30_000
	DefaultChars = 20_000

	maxURLLength = 8 << 10
)

// Tools returns web_fetch. policy decides which addresses it may connect
// to (nil means DefaultPolicy) and resolver looks up host names (nil means
// SystemResolver). The tool keeps one connection pool across calls.
func Tools(policy AddressPolicy, resolver Resolver) []tools.Tool {
	if policy == nil {
		policy = DefaultPolicy
	}
	if resolver == nil {
		resolver = SystemResolver
	}
	return []tools.Tool{newFetchTool(policy, resolver, FetchTimeout)}
}

type fetchTool struct {
	client  *http.Client
	policy  AddressPolicy
	timeout time.Duration
}

func newFetchTool(policy AddressPolicy, resolver Resolver, timeout time.Duration) *fetchTool {
	dialer := newGuardedDialer(policy, resolver)
	transport := &http.Transport{
		// No proxy: a proxy would connect on our behalf, out of reach of
		// the address check. HTTP(S)_PROXY is ignored on purpose.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          8,
		IdleConnTimeout:       30 * time.Second,
	}
	client := &http.Client{
		Transport: transport,
		// Redirects are followed by hand in fetch, so each hop is vetted
		// and counted there.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &fetchTool{client: client, policy: policy, timeout: timeout}
}

const fetchSchema = `{"type":"object","properties":{` +
	`"url":{"type":"string","description":"An http or https URL of a public site"},` +
	`"maxChars":{"type":"integer","minimum":500,"maximum":30000,"description":"Most characters of the page to return (default 20000)"}},` +
	`"required":["url"],"additionalProperties":false}`

func (*fetchTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "web_fetch",
		Description: "Fetch a public web page or text file (GET). HTML comes back as markdown; binary files are refused. Private and local addresses are refused.",
		Schema:      json.RawMessage(fetchSchema),
	}
}

func (*fetchTool) Meta() tools.Meta {
	return tools.Meta{
		Set:      tools.SetNet,
		Guidance: "web_fetch: read a public web page or document (as markdown); the user approves each fetch.",
		Subjects: urlField,
	}
}

// urlField is a call's subject for permission rules: the URL as given.
func urlField(input json.RawMessage) []string {
	var in struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(input, &in) != nil || in.URL == "" {
		return nil
	}
	return []string{in.URL}
}

func (t *fetchTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		URL      string `json:"url"`
		MaxChars *int   `json:"maxChars"`
	}
	if err := tools.Decode(call, &in); err != nil {
		return "", err
	}
	raw := strings.TrimSpace(in.URL)
	if raw == "" {
		return "", refusef("url is required")
	}
	limit := DefaultChars
	if in.MaxChars != nil {
		limit = *in.MaxChars
		if limit < MinChars || limit > MaxChars {
			return "", refusef("maxChars must be between %d and %d, got %d", MinChars, MaxChars, limit)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	pg, err := t.fetch(ctx, raw)
	if err != nil {
		// The overall deadline and the transport's header timeout are the
		// same length, so either may fire first; both mean a silent site.
		var netErr net.Error
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
			return "", refusef("web_fetch gave up on %s after %s: the site did not answer in time", raw, t.timeout)
		}
		return "", err
	}
	return pg.render(limit), nil
}

// fetch GETs raw, following up to MaxRedirects redirects, each checked
// before it is requested.
func (t *fetchTool) fetch(ctx context.Context, raw string) (*page, error) {
	if len(raw) > maxURLLength {
		return nil, refusef("the URL is %d bytes long; web_fetch takes URLs up to %d bytes", len(raw), maxURLLength)
	}
	cur, err := url.Parse(raw)
	if err != nil {
		return nil, refusef("%q is not a valid URL: %v", raw, err)
	}
	hops := []*url.URL{cur}
	for {
		if err := checkURL(cur, t.policy); err != nil {
			return nil, err
		}
		resp, err := t.get(ctx, cur)
		if err != nil {
			return nil, err
		}
		if !isRedirect(resp.StatusCode) {
			defer resp.Body.Close()
			return readPage(ctx, resp, hops)
		}
		loc := resp.Header.Get("Location")
		// Drain a little so the connection can be reused, then let go.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
		if loc == "" {
			return nil, refusef("%s answered %s without saying where to (no Location header)", cur.Redacted(), resp.Status)
		}
		next, err := cur.Parse(loc)
		if err != nil {
			return nil, refusef("%s redirects to %q, which is not a valid URL", cur.Redacted(), loc)
		}
		if len(hops) > MaxRedirects {
			return nil, refusef("stopped after %d redirects: %s -> %s; fetch the URL you want directly", MaxRedirects, chain(hops), next.Redacted())
		}
		hops = append(hops, next)
		cur = next
	}
}

func (t *fetchTool) get(ctx context.Context, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, refusef("cannot request %s: %v", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", "shiro-web-fetch/1 (terminal coding agent)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := t.client.Do(req)
	if err != nil {
		// A refusal from the dialer reads best on its own.
		var r *refusal
		if errors.As(err, &r) {
			return nil, r
		}
		return nil, fmt.Errorf("GET %s: %w", u.Redacted(), err)
	}
	return resp, nil
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// chain renders the URLs visited as "a -> b -> c".
func chain(hops []*url.URL) string {
	parts := make([]string, len(hops))
	for i, u := range hops {
		parts[i] = u.Redacted()
	}
	return strings.Join(parts, " -> ")
}
