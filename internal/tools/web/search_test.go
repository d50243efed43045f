package web

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

// searchTool is web_search against a backend at srv, reached through the
// admitting policy and the fake DNS, as fetch tests reach their server.
func searchTool(dns *fakeDNS, backend string) tool.Tool {
	return Tools(admitServer, dns.resolve, Search{URL: backend})[1]
}

// A local result page in DuckDuckGo Lite's markup: the query reaches the
// backend escaped, and the answer lists at most five public results with
// their snippets; links to private hosts and non-web schemes are dropped
// and redirect links are unwrapped.
func TestSearchReadsTheResultPage(t *testing.T) {
	page, err := os.ReadFile("testdata/lite.html")
	if err != nil {
		t.Fatal(err)
	}
	var gotQuery string
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("q")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	dns := newDNS(map[string]string{"search.example.test": "127.0.0.1"})
	tl := searchTool(dns, "http://search.example.test:"+port(srv)+"/lite/?q={query}")
	out, err := fetchWith(t, tl, map[string]any{"query": "  golang\n context & more "})
	if err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 1 || gotQuery != "golang context & more" {
		t.Fatalf("hits %d, query %q", hits.Load(), gotQuery)
	}
	want := `1. context package - context - Go Packages
   https://pkg.go.dev/context
   Package context defines the Context type, which carries deadlines, cancellation signals, and other request-scoped values.

2. Go Concurrency Patterns: Context
   https://go.dev/blog/context
   In Go servers, each incoming request is handled in its own goroutine.

3. One
   https://one.example.com/

4. Two
   https://two.example.com/

5. Three
   https://three.example.com/
   The fifth public result.`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestSearchSaysWhenNothingIsFound(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><p>No results.</p></body></html>`))
	})
	dns := newDNS(map[string]string{"search.example.test": "127.0.0.1"})
	out, err := fetchWith(t, searchTool(dns, "http://search.example.test:"+port(srv)+"/?q={query}"), map[string]any{"query": "zzqx"})
	if err != nil || out != "no results found" {
		t.Fatalf("out %q, err %v", out, err)
	}
}

// The backend is fetched under the same address policy as web_fetch: a
// backend on a private address is refused before any request, whether
// named by address or by a name that resolves there, and a redirect from
// an admitted backend to a private host is refused too.
func TestSearchRefusesPrivateBackends(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.7/lite/?q=x", http.StatusFound)
	})
	dns := newDNS(map[string]string{
		"intranet.example.test": "10.1.2.3",
		"search.example.test":   "127.0.0.1",
	})
	for _, c := range []struct {
		backend string
		policy  AddressPolicy
		want    string
	}{
		{"http://127.0.0.1:" + port(srv) + "/?q={query}", nil, "127.0.0.1 is not a public address (loopback)"},
		{"http://search.example.test:" + port(srv) + "/?q={query}", nil, "it resolves to 127.0.0.1 is not a public address (loopback)"},
		{"http://intranet.example.test/?q={query}", admitServer, "it resolves to 10.1.2.3 is not a public address (private, RFC 1918)"},
		{"http://search.example.test:" + port(srv) + "/?q={query}", admitServer, "refusing to fetch from 10.0.0.7"},
	} {
		tl := Tools(c.policy, dns.resolve, Search{URL: c.backend})[1]
		_, err := fetchWith(t, tl, map[string]any{"query": "x"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.backend, err, c.want)
		}
	}
	if hits.Load() != 1 {
		t.Errorf("the server got %d requests; only the admitted, redirecting one should arrive", hits.Load())
	}
}

func TestSearchPlanAndInfo(t *testing.T) {
	tl := Tools(nil, nil, Search{})[1]
	info := tl.Info()
	if info.Name != "web_search" || info.Set != tool.SetNet || info.Subject != tool.TextSubject || info.Effect.Default() != "ask" || info.Hosted == "" {
		t.Errorf("info %+v", info)
	}
	if Tools(nil, nil, Search{Local: true})[1].Info().Hosted != "" {
		t.Error("a local-only search is still offered to the provider")
	}
	p, err := tl.Prepare([]byte(`{"query":"  rust\tlifetimes  "}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Plan(); len(got.Subjects) != 1 || got.Subjects[0] != "rust lifetimes" || got.Title != "rust lifetimes" {
		t.Errorf("plan %+v", got)
	}
	for _, in := range []string{`{"query":"   "}`, `{"query":"` + strings.Repeat("q", maxQuery+1) + `"}`} {
		if _, err := tl.Prepare([]byte(in)); err == nil {
			t.Errorf("%.40s: accepted", in)
		}
	}
}
