package web

import (
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// MaxResults is the most results web_search returns.
const MaxResults = 5

// result is one hit of a search page.
type result struct {
	Title, URL, Snippet string
}

// parseResults reads the hits of a search engine's HTML result page: links
// marked as results (DuckDuckGo's Lite page marks them `result-link`, its
// HTML page `result__a`) and the snippet that follows each. It keeps at
// most MaxResults public http(s) results; links to private or local hosts
// are dropped, so a result page cannot steer the model at the network it
// runs in.
func parseResults(r io.Reader, base *url.URL) ([]result, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("parse the result page: %w", err)
	}
	var out []result
	var cur *result
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom.String() == "a" && hasClass(n, "result-link", "result__a"):
				if cur != nil {
					out = append(out, *cur)
					cur = nil
				}
				if len(out) == MaxResults {
					return false
				}
				if u := resultURL(attr(n, "href"), base); u != "" {
					cur = &result{Title: squeeze(textOf(n)), URL: u}
				}
				return true
			case hasClass(n, "result-snippet", "result__snippet"):
				if cur != nil && cur.Snippet == "" {
					cur.Snippet = squeeze(textOf(n))
				}
				return true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	walk(doc)
	if cur != nil && len(out) < MaxResults {
		out = append(out, *cur)
	}
	return out, nil
}

// resultURL resolves a result link against the page and unwraps a
// redirect link (DuckDuckGo's /l/?uddg=<target>). It returns "" for a link
// that is not a public http(s) URL.
func resultURL(href string, base *url.URL) string {
	u, err := base.Parse(strings.TrimSpace(href))
	if err != nil {
		return ""
	}
	if target := u.Query().Get("uddg"); target != "" {
		if u, err = url.Parse(target); err != nil {
			return ""
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	if privateHost(u.Hostname()) {
		return ""
	}
	return u.String()
}

// privateHost reports a host that names this machine or a private
// network by itself: an address outside DefaultPolicy, a number in a form
// resolvers read as an address, or a local-only name. (Names are not
// resolved here: the result is text for the model, and web_fetch checks
// each address it connects to.)
func privateHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if addr, err := netip.ParseAddr(h); err == nil {
		return DefaultPolicy(addr) != nil
	}
	if h == "" || endsInNumber(h) || h == "localhost" {
		return true
	}
	for _, suffix := range []string{".localhost", ".local", ".internal", ".lan", ".home.arpa"} {
		if strings.HasSuffix(h, suffix) {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, names ...string) bool {
	for _, f := range strings.Fields(attr(n, "class")) {
		for _, name := range names {
			if f == name {
				return true
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text under n, without scripts and styles.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
		case html.ElementNode:
			if d := n.DataAtom.String(); d == "script" || d == "style" {
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// squeeze folds runs of white space (and control characters) to single
// spaces, so that a result is one line however the page wrapped it.
func squeeze(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r == 0x85 || r == 0xa0 || r == 0x2028 || r == 0x2029
	}), " ")
}

// renderResults is web_search's answer: `1. title\n   url\n   snippet`.
func renderResults(rs []result) string {
	if len(rs) == 0 {
		return "no results found"
	}
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte('\n')
		}
		title := r.Title
		if title == "" {
			title = r.URL
		}
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
