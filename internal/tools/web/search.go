package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// DefaultSearchURL is web_search's HTML backend, as in the original:
// DuckDuckGo's Lite page. {query} stands for the escaped query.
const DefaultSearchURL = "https://lite.duckduckgo.com/lite/?q={query}"

// maxQuery is the longest query web_search sends.
const maxQuery = 500

// Search configures web_search.
type Search struct {
	// URL is the HTML backend, with {query} where the query goes; ""
	// means DefaultSearchURL.
	URL string
	// Local keeps every search on the HTML backend, through the gate,
	// even with a provider that runs searches itself.
	Local bool
}

type searchIn struct {
	Query string `json:"query" jsonschema:"What to search the web for"`
}

func (f *fetcher) searchTool(cfg Search) tool.Tool {
	backend := cfg.URL
	if backend == "" {
		backend = DefaultSearchURL
	}
	info := tool.Info{
		Name:        "web_search",
		Description: fmt.Sprintf("Search the web. Returns at most %d results, each with its title, URL and a snippet; read a result with web_fetch.", MaxResults),
		Guidance:    "web_search: find public web pages on a subject; the user approves each search.",
		Set:         tool.SetNet,
		Effect:      tool.Fetches,
		Kind:        protocol.KindFetch,
		Subject:     tool.TextSubject,
	}
	if !cfg.Local {
		info.Hosted = llm.HostedWebSearch
	}
	return tool.New(tool.Def[searchIn]{
		Info: info,
		Check: func(in *searchIn) error {
			_, err := cleanQuery(in.Query)
			return err
		},
		Shape: func(*jsonschema.Schema) {},
		Plan: func(in *searchIn) tool.Plan {
			q, _ := cleanQuery(in.Query)
			return tool.Plan{Subjects: []string{q}, Title: planQuery(q)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *searchIn) (tool.Result, error) {
			return tool.TextOf(f.search(ctx, backend, in.Query))
		},
	})
}

// cleanQuery is the query on one line, without surrounding spaces.
func cleanQuery(q string) (string, error) {
	q = squeeze(q)
	if q == "" {
		return "", refusef("query is required")
	}
	if len(q) > maxQuery {
		return "", refusef("the query is %d bytes long; web_search takes queries up to %d bytes", len(q), maxQuery)
	}
	return q, nil
}

func planQuery(q string) string {
	if r := []rune(q); len(r) > titleMax {
		return string(r[:titleMax-1]) + "…"
	}
	return q
}

// search asks the backend and reads its result page. The backend is
// fetched as web_fetch fetches: public addresses only, each redirect
// checked.
func (f *fetcher) search(ctx context.Context, backend, query string) (string, error) {
	q, err := cleanQuery(query)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(strings.ReplaceAll(backend, "{query}", url.QueryEscape(q)))
	if err != nil {
		return "", fmt.Errorf("web search URL %q: %w", backend, err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	pg, body, err := f.fetchRaw(ctx, u)
	if err != nil {
		var netErr net.Error
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
			return "", refusef("web_search gave up on %s after %s: the search site did not answer in time", u.Redacted(), f.timeout)
		}
		return "", fmt.Errorf("web_search: %w", err)
	}
	results, err := parseResults(bytes.NewReader(body), pg)
	if err != nil {
		return "", fmt.Errorf("web_search: %s: %w", pg.Redacted(), err)
	}
	return renderResults(results), nil
}
