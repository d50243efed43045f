package config

import (
	"fmt"
	"net/url"
	"strings"
)

// WebSearchConfig is the `webSearch` object of the user's config. A
// project's config cannot set it: it decides where the person's queries
// go.
type WebSearchConfig struct {
	// URL is the HTML search backend, {query} standing for the escaped
	// query; empty means DuckDuckGo's Lite page.
	URL string `json:"url,omitempty"`
	// Local keeps searches on the HTML backend, asked about one by one,
	// even when the provider could run them itself.
	Local *bool `json:"local,omitempty"`
}

// check validates the backend URL in the file name: an http or https URL
// with {query} in it. Whether its host is public is checked at each
// search, by the addresses it resolves to.
func (w *WebSearchConfig) check(name string) error {
	if w.URL == "" {
		return nil
	}
	field := func(format string, args ...any) error {
		return fmt.Errorf("%s: field \"webSearch.url\": %s", name, fmt.Sprintf(format, args...))
	}
	if !strings.Contains(w.URL, "{query}") {
		return field("%q has no {query}: write the URL with {query} where the search terms go, e.g. https://lite.duckduckgo.com/lite/?q={query}", w.URL)
	}
	u, err := url.Parse(strings.ReplaceAll(w.URL, "{query}", "x"))
	if err != nil {
		return field("%q is not a valid URL: %v", w.URL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return field("%q is not an http or https URL", w.URL)
	}
	return nil
}
