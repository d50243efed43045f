package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// The tests run a loopback server. The tool under test gets a policy that
// admits exactly that server's address and otherwise defers to
// DefaultPolicy, and a resolver that maps test names to chosen addresses:
// so "docs.example.test" plays a public host without any network.

var serverAddr = netip.MustParseAddr("127.0.0.1")

func admitServer(a netip.Addr) error {
	if a == serverAddr {
		return nil
	}
	return DefaultPolicy(a)
}

// fakeDNS is an injected resolver that records its lookups.
type fakeDNS struct {
	mu      sync.Mutex
	names   map[string][]netip.Addr
	lookups []string
}

func newDNS(names map[string]string) *fakeDNS {
	d := &fakeDNS{names: map[string][]netip.Addr{}}
	for name, addrs := range names {
		for _, a := range strings.Fields(addrs) {
			d.names[name] = append(d.names[name], netip.MustParseAddr(a))
		}
	}
	return d
}

func (d *fakeDNS) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lookups = append(d.lookups, host)
	if addrs, ok := d.names[host]; ok {
		return addrs, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// server starts a loopback server and counts the requests it gets.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// port is the server's port, for building URLs with other host names.
func port(srv *httptest.Server) string {
	u, _ := url.Parse(srv.URL)
	return u.Port()
}

// fetchWith runs one call through Prepare and Run, as a session would
// without the gate.
func fetchWith(t *testing.T, tl tool.Tool, input any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tooltest.Invoke(t.Context(), tl, raw, tool.Runtime{CallID: "t"})
	return res.Output, err
}

func testTool(dns *fakeDNS) tool.Tool {
	return Tools(admitServer, dns.resolve, Search{})[0]
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q:\n%s", w, got)
		}
	}
}

func TestFetchHTMLAsMarkdown(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>T</title><style>p{}</style><script>alert(1)</script></head>`+
			`<body><h1>Hello</h1><p>Read <a href="/docs/x">the docs</a> and <b>this</b>.</p>`+
			`<ul><li>one</li><li>two</li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></body></html>`)
	})
	dns := newDNS(map[string]string{"docs.example.test": "127.0.0.1"})
	start := "http://docs.example.test:" + port(srv) + "/page"
	out, err := fetchWith(t, testTool(dns), map[string]any{"url": start})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, start+"\n\n# Hello\n\nRead [the docs](http://docs.example.test:"+port(srv)+"/docs/x) and **this**.") {
		t.Errorf("output:\n%s", out)
	}
	mustContain(t, out, "- one\n- two", "| k | v |")
	if strings.Contains(out, "alert") || strings.Contains(out, "p{}") {
		t.Errorf("script or style leaked:\n%s", out)
	}
	if !slices.Equal(dns.lookups, []string{"docs.example.test"}) {
		t.Errorf("lookups %q", dns.lookups)
	}
}

func TestFetchTextAndCharsets(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			w.Write([]byte("caf\xe9\n"))
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a": [1, 2]}`)
		case "/empty":
			w.Header().Set("Content-Type", "text/plain")
		}
	})
	tool := testTool(newDNS(nil))
	for path, want := range map[string]string{
		"/latin1": "\n\ncafé",
		"/json":   "\n\n{\"a\": [1, 2]}",
		"/empty":  "\n\n(the page has no text)",
	} {
		out, err := fetchWith(t, tool, map[string]any{"url": srv.URL + path})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if out != srv.URL+path+want {
			t.Errorf("%s: %q", path, out)
		}
	}
}

func TestFetchRefusesBinary(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/png":
			w.Header().Set("Content-Type", "image/png")
		case "/pdf":
			w.Header().Set("Content-Type", "application/pdf")
		case "/zip":
			w.Header().Set("Content-Type", "application/zip")
		case "/bin":
			w.Header().Set("Content-Type", "application/octet-stream")
		case "/video":
			w.Header().Set("Content-Type", "video/mp4")
		case "/pdf-as-text":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "%PDF-1.7\n...")
			return
		case "/undeclared-nul":
			w.Header()["Content-Type"] = nil // no header, no server-side sniffing
			w.Write([]byte("ELF\x00\x01\x02binary"))
			return
		case "/text-with-nul":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write(append([]byte(strings.Repeat("x", 600)), 0))
			return
		}
		w.Write([]byte{0x89, 'P', 'N', 'G', 0, 0, 0})
	})
	tool := testTool(newDNS(nil))
	for path, want := range map[string]string{
		"/png":            "is image/png, which web_fetch does not read",
		"/pdf":            "is application/pdf, which web_fetch does not read",
		"/zip":            "is application/zip",
		"/bin":            "is application/octet-stream",
		"/video":          "is video/mp4",
		"/pdf-as-text":    "looks like binary data (application/pdf)",
		"/undeclared-nul": "looks like binary data (application/octet-stream)",
		"/text-with-nul":  "looks like binary data (it has NUL bytes)",
	} {
		_, err := fetchWith(t, tool, map[string]any{"url": srv.URL + path})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

// The body is read up to the cap and no further: the handler writes
// forever, and returns only when the client has hung up.
func TestFetchBodyCap(t *testing.T) {
	handlerDone := make(chan struct{})
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("abcdefgh", 128))
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	tool := testTool(newDNS(nil))
	out, err := fetchWith(t, tool, map[string]any{"url": srv.URL + "/stream", "maxChars": 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, srv.URL+"/stream\n\nabcdefgh") {
		t.Errorf("start %q", out[:60])
	}
	want := "\n\n[showing the first 1000 of 524288 characters; pass a larger maxChars (up to 30000) to see more]\n" +
		"[the body is larger than 512 KB; only its first 512 KB were read]"
	if !strings.HasSuffix(out, want) {
		t.Errorf("notes:\n%s", out[len(out)-200:])
	}
	select {
	case <-handlerDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server is still writing: the body was not let go")
	}
}

func TestFetchRedirects(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		var n, limit int
		if _, err := fmt.Sscanf(r.URL.Path, "/r/%d/%d", &n, &limit); err != nil {
			http.NotFound(w, r)
			return
		}
		if n < limit {
			http.Redirect(w, r, fmt.Sprintf("/r/%d/%d", n+1, limit), http.StatusFound)
			return
		}
		fmt.Fprintf(w, "arrived after %d", n)
	})
	tool := testTool(newDNS(nil))
	out, err := fetchWith(t, tool, map[string]any{"url": srv.URL + "/r/0/5"})
	if err != nil {
		t.Fatal(err)
	}
	if want := srv.URL + "/r/0/5 -> " + srv.URL + "/r/5/5\n\narrived after 5"; out != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
	_, err = fetchWith(t, tool, map[string]any{"url": srv.URL + "/r/0/6"})
	if err == nil || !strings.HasPrefix(err.Error(), "stopped after 5 redirects: "+srv.URL+"/r/0/6 -> ") ||
		!strings.HasSuffix(err.Error(), "/r/5/6 -> "+srv.URL+"/r/6/6; fetch the URL you want directly") {
		t.Errorf("redirect cap: %v", err)
	}
	_, err = fetchWith(t, tool, map[string]any{"url": srv.URL + "/missing"})
	if err == nil || err.Error() != srv.URL+"/missing answered 404 Not Found" {
		t.Errorf("404: %v", err)
	}
}

// Every way of naming a loopback or private host is refused by the
// default policy, before any connection.
func TestDefaultPolicyRefusesLocalTargets(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	p := port(srv)
	dns := newDNS(map[string]string{
		"localhost":            "127.0.0.1 ::1",
		"intranet.example.com": "10.0.0.1",
		"mixed.example.com":    "93.184.216.34 10.0.0.1",
		"metadata.example.com": "169.254.169.254",
		"mapped.example.com":   "::ffff:127.0.0.1",
	})
	tool := Tools(nil, dns.resolve, Search{})[0]
	for rawURL, want := range map[string]string{
		"http://127.0.0.1:" + p + "/":          "refusing to fetch from 127.0.0.1: 127.0.0.1 is not a public address (loopback)",
		"http://[::1]:" + p + "/":              "refusing to fetch from ::1: ::1 is not a public address",
		"http://[::ffff:127.0.0.1]:" + p + "/": "IPv4-mapped form of 127.0.0.1: loopback",
		"http://[::ffff:7f00:1]:" + p + "/":    "IPv4-mapped form of 127.0.0.1: loopback",
		"http://localhost:" + p + "/":          "refusing to fetch from localhost: it resolves to 127.0.0.1 is not a public address (loopback)",
		"http://intranet.example.com/":         "it resolves to 10.0.0.1 is not a public address (private, RFC 1918)",
		"https://mixed.example.com/":           "it resolves to 10.0.0.1 is not a public address",
		"http://metadata.example.com/latest/":  "169.254.169.254 is not a public address (link-local)",
		"http://mapped.example.com/":           "IPv4-mapped form of 127.0.0.1",
		"http://2130706433:" + p + "/":         `the host "2130706433" is a number in a non-standard form`,
		"http://0x7f000001:" + p + "/":         `the host "0x7f000001" is a number in a non-standard form`,
		"http://0177.0.0.1:" + p + "/":         `the host "0177.0.0.1" is a number in a non-standard form`,
		"http://127.1:" + p + "/":              `the host "127.1" is a number in a non-standard form`,
		"http://%31%32%37.0.0.1:" + p + "/":    "is not a valid URL",
		"http://[fe80::1%25eth0]/":             "has an IPv6 zone",
		"http://0.0.0.0:" + p + "/":            "'this network'",
		"ftp://example.com/x":                  `web_fetch only fetches http and https URLs, not "ftp:"`,
		"file:///etc/passwd":                   `not "file:"`,
		"http://user:pw@example.com/":          "does not send credentials",
		"http:///nohost":                       "has no host",
	} {
		_, err := fetchWith(t, tool, map[string]any{"url": rawURL})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %q", rawURL, err, want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
}

// Numeric host forms are refused even when the policy would admit the
// address they stand for: a resolver might read them as 127.0.0.1.
func TestNumericHostsRefusedBeforeThePolicy(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	tool := testTool(newDNS(map[string]string{"2130706433": "127.0.0.1", "0x7f000001": "127.0.0.1"}))
	for _, host := range []string{"2130706433", "0x7f000001", "127.0.0.1."} {
		_, err := fetchWith(t, tool, map[string]any{"url": "http://" + host + ":" + port(srv) + "/"})
		if err == nil || !strings.Contains(err.Error(), "is a number in a non-standard form") {
			t.Errorf("%s: %v", host, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was reached %d times", n)
	}
}

// A public-looking host that redirects to a private one: each hop is
// checked, so the second is refused and never requested.
func TestRedirectToPrivateHostRefused(t *testing.T) {
	var hits atomic.Int32
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-intranet":
			http.Redirect(w, r, "http://intranet.example.com/admin", http.StatusFound)
		case "/to-v6-loopback":
			http.Redirect(w, r, "http://[::1]:"+r.Host[strings.LastIndexByte(r.Host, ':')+1:]+"/", http.StatusMovedPermanently)
		case "/to-numeric":
			http.Redirect(w, r, "http://2130706433/", http.StatusTemporaryRedirect)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			hits.Add(1)
		}
	})
	dns := newDNS(map[string]string{"public.example.test": "127.0.0.1", "intranet.example.com": "10.0.0.1"})
	tool := testTool(dns)
	base := "http://public.example.test:" + port(srv)
	for path, want := range map[string]string{
		"/to-intranet":    "refusing to fetch from intranet.example.com: it resolves to 10.0.0.1 is not a public address (private, RFC 1918)",
		"/to-v6-loopback": "::1 is not a public address",
		"/to-numeric":     `the host "2130706433" is a number in a non-standard form`,
		"/to-file":        `web_fetch only fetches http and https URLs, not "file:"`,
	} {
		_, err := fetchWith(t, tool, map[string]any{"url": base + path})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %q", path, err, want)
		}
	}
	if hits.Load() != 0 {
		t.Error("a redirect target was requested")
	}
}

// The dialer connects to the address it checked, not to a second answer
// of the resolver: a rebinding DNS server that turns private after the
// first lookup cannot steer the connection.
func TestDialerConnectsOnlyToCheckedAddress(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "public content") })
	var lookups atomic.Int32
	rebinding := func(_ context.Context, host string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return []netip.Addr{serverAddr}, nil
		}
		return []netip.Addr{netip.MustParseAddr("10.0.0.1")}, nil
	}
	tool := Tools(admitServer, rebinding, Search{})[0]
	out, err := fetchWith(t, tool, map[string]any{"url": "http://rebind.example.test:" + port(srv) + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "\n\npublic content") || hits.Load() != 1 || lookups.Load() != 1 {
		t.Errorf("out %q, hits %d, lookups %d", out, hits.Load(), lookups.Load())
	}
	// The socket-level check refuses a connect to a refused address even
	// if something upstream let it through.
	g := newGuardedDialer(DefaultPolicy, rebinding)
	if err := g.control("tcp4", "10.0.0.1:80", nil); err == nil || err.Error() != "refusing to connect to 10.0.0.1: 10.0.0.1 is not a public address (private, RFC 1918)" {
		t.Errorf("control: %v", err)
	}
	if err := g.control("tcp4", "1.1.1.1:443", nil); err != nil {
		t.Errorf("control refused a public address: %v", err)
	}
	var r *refusal
	if err := g.control("tcp", "not-an-address", nil); !errors.As(err, &r) {
		t.Errorf("control of a name: %v", err)
	}
}

func TestFetchTimeout(t *testing.T) {
	released := make(chan struct{})
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answer nothing until the client gives up
		close(released)
	})
	tl := newFetcher(admitServer, newDNS(nil).resolve, 200*time.Millisecond).tool()
	_, err := fetchWith(t, tl, map[string]any{"url": srv.URL + "/slow"})
	if err == nil || err.Error() != "web_fetch gave up on "+srv.URL+"/slow after 200ms: the site did not answer in time" {
		t.Errorf("got %v", err)
	}
	<-released
}
