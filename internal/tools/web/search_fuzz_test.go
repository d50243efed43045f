package web

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseResults feeds the result parser any page: it must not panic,
// must keep at most MaxResults results, and every result must be a
// public http(s) URL with single-line text.
func FuzzParseResults(f *testing.F) {
	if page, err := os.ReadFile("testdata/lite.html"); err == nil {
		f.Add(string(page))
	}
	f.Add(`<a class="result__a" href="https://x.example.com/">x</a><a class="result__snippet">s</a>`)
	f.Add(`<a class="result-link" href="/l/?uddg=http%3A%2F%2F127.0.0.1%2F">loop</a>`)
	f.Add(`<a class="result-link" href="https://[::1]/">v6</a><td class="result-snippet">a` + "\n\tb</td>")
	base, _ := url.Parse("https://lite.duckduckgo.com/lite/")
	f.Fuzz(func(t *testing.T, page string) {
		rs, err := parseResults(strings.NewReader(page), base)
		if err != nil {
			return
		}
		if len(rs) > MaxResults {
			t.Fatalf("%d results", len(rs))
		}
		for _, r := range rs {
			u, err := url.Parse(r.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || privateHost(u.Hostname()) {
				t.Fatalf("result URL %q", r.URL)
			}
			for _, s := range []string{r.Title, r.Snippet} {
				if strings.ContainsAny(s, "\n\r\t") {
					t.Fatalf("multi-line text %q", s)
				}
			}
		}
		out := renderResults(rs)
		if len(rs) == 0 && out != "no results found" {
			t.Fatalf("empty rendered as %q", out)
		}
		if utf8.ValidString(page) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", out)
		}
	})
}
