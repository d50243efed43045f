// Package web provides web_fetch and web_search (set `net`, opt-in): an
// HTTP GET, and a search through an HTML result page, that only ever
// connect to public addresses.
//
// The address check is not on the URL's host name but on every address
// the name resolves to, and again on the address each connection is
// actually made to: the dialer connects only to addresses it has just
// checked, so a DNS answer that changes between the check and the connect
// (rebinding) cannot reach a private host. Redirects are followed by hand,
// each hop checked the same way.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
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
	// titleMax is the most characters of a call's title.
	titleMax = 80
)

// Tools returns web_fetch and web_search. policy decides which addresses
// they may connect to (nil means DefaultPolicy) and resolver looks up host
// names (nil means SystemResolver); search configures web_search. The
// tools share one connection pool across calls.
func Tools(policy AddressPolicy, resolver Resolver, search Search) []tool.Tool {
	if policy == nil {
		policy = DefaultPolicy
	}
	if resolver == nil {
		resolver = SystemResolver
	}
	f := newFetcher(policy, resolver, FetchTimeout)
	return []tool.Tool{f.tool(), f.searchTool(search)}
}

// fetcher is what web_fetch keeps across calls: its client, whose
// transport dials only what the policy admits.
type fetcher struct {
	client  *http.Client
	policy  AddressPolicy
	timeout time.Duration
}

func newFetcher(policy AddressPolicy, resolver Resolver, timeout time.Duration) *fetcher {
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
	return &fetcher{client: client, policy: policy, timeout: timeout}
}

type fetchIn struct {
	URL      string `json:"url" jsonschema:"An http or https URL of a public site"`
	MaxChars *int   `json:"maxChars,omitempty" jsonschema:"Most characters of the page to return (default 20000)"`
}

func (f *fetcher) tool() tool.Tool {
	return tool.New(tool.Def[fetchIn]{
		Info: tool.Info{
			Name:        "web_fetch",
			Description: "Fetch a public web page or text file (GET). HTML comes back as markdown; binary files are refused. Private and local addresses are refused.",
			Guidance:    "web_fetch: read a public web page or document (as markdown); the user approves each fetch.",
			Set:         tool.SetNet,
			Effect:      tool.Fetches,
			Kind:        protocol.KindFetch,
			Subject:     tool.URLSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "maxChars", MinChars, MaxChars) },
		Check: func(in *fetchIn) error {
			_, err := parseURL(in.URL)
			return err
		},
		Plan: func(in *fetchIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.URL}, Title: planTitle(in.URL)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *fetchIn) (tool.Result, error) {
			return tool.TextOf(f.run(ctx, in))
		},
	})
}

// parseURL reads the URL a call gives, without its surrounding spaces.
// Whether the URL may be fetched is decided hop by hop, in fetch.
func parseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, refusef("url is required")
	}
	if len(raw) > maxURLLength {
		return nil, refusef("the URL is %d bytes long; web_fetch takes URLs up to %d bytes", len(raw), maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refusef("%q is not a valid URL: %v", raw, err)
	}
	return u, nil
}

// planTitle is the URL as people see it: without a password, on one line
// (a parsed URL has no control characters), cut to titleMax characters.
func planTitle(raw string) string {
	u, err := parseURL(raw)
	if err != nil {
		return ""
	}
	s := u.Redacted()
	if utf8.RuneCountInString(s) > titleMax {
		s = string([]rune(s)[:titleMax-1]) + "…"
	}
	return s
}

func (f *fetcher) run(ctx context.Context, in *fetchIn) (string, error) {
	start, err := parseURL(in.URL)
	if err != nil {
		return "", err
	}
	limit := tool.Or(in.MaxChars, DefaultChars)
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	pg, err := f.fetch(ctx, start)
	if err != nil {
		// The overall deadline and the transport's header timeout are the
		// same length, so either may fire first; both mean a silent site.
		var netErr net.Error
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
			return "", refusef("web_fetch gave up on %s after %s: the site did not answer in time", strings.TrimSpace(in.URL), f.timeout)
		}
		return "", err
	}
	return pg.render(limit), nil
}

// fetch GETs start, following up to MaxRedirects redirects, each checked
// before it is requested.
func (f *fetcher) fetch(ctx context.Context, start *url.URL) (*page, error) {
	resp, hops, err := f.follow(ctx, start)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readPage(ctx, resp, hops)
}

// fetchRaw GETs start as fetch does and returns the final URL and the
// body's first BodyCap bytes, for a caller that reads the HTML itself.
func (f *fetcher) fetchRaw(ctx context.Context, start *url.URL) (*url.URL, []byte, error) {
	resp, hops, err := f.follow(ctx, start)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	final := hops[len(hops)-1]
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, refusef("%s answered %s", final.Redacted(), resp.Status)
	}
	body, _, err := readCapped(resp.Body, BodyCap)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", final.Redacted(), err)
	}
	return final, body, nil
}

// follow GETs start and the redirects it leads to, each checked before it
// is requested, and returns the final response (its body open) with the
// URLs visited.
func (f *fetcher) follow(ctx context.Context, start *url.URL) (*http.Response, []*url.URL, error) {
	cur := start
	hops := []*url.URL{cur}
	for {
		if err := checkURL(cur, f.policy); err != nil {
			return nil, nil, err
		}
		resp, err := f.get(ctx, cur)
		if err != nil {
			return nil, nil, err
		}
		if !isRedirect(resp.StatusCode) {
			return resp, hops, nil
		}
		loc := resp.Header.Get("Location")
		// Drain a little so the connection can be reused, then let go.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
		if loc == "" {
			return nil, nil, refusef("%s answered %s without saying where to (no Location header)", cur.Redacted(), resp.Status)
		}
		next, err := cur.Parse(loc)
		if err != nil {
			return nil, nil, refusef("%s redirects to %q, which is not a valid URL", cur.Redacted(), loc)
		}
		if len(hops) > MaxRedirects {
			return nil, nil, refusef("stopped after %d redirects: %s -> %s; fetch the URL you want directly", MaxRedirects, chain(hops), next.Redacted())
		}
		hops = append(hops, next)
		cur = next
	}
}

func (f *fetcher) get(ctx context.Context, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, refusef("cannot request %s: %v", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", "shiro-web-fetch/1 (terminal coding agent)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.client.Do(req)
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
