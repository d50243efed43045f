package registry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckHop(t *testing.T) {
	local, _ := url.Parse("http://127.0.0.1:8080/index.json")
	remote, _ := url.Parse("https://registry.example.com/index.json")
	for _, tc := range []struct {
		hop    string
		origin *url.URL
		want   string // "" means allowed
	}{
		{"https://registry.example.com/x.json", remote, ""},
		{"https://cdn.example.net/x.json", remote, ""},
		{"HTTPS://cdn.example.net/x.json", remote, ""},
		{"http://127.0.0.1:9/x.json", local, ""},
		{"http://localhost/x.json", local, ""},
		{"http://[::1]:9/x.json", local, ""},
		{"http://127.0.0.2/x.json", local, ""},
		{"http://cdn.example.net/x.json", remote, "uses plain http"},
		{"http://cdn.example.net/x.json", local, "uses plain http"},
		// A remote registry must not bounce the request to this machine.
		{"http://127.0.0.1:9/x.json", remote, "uses plain http"},
		{"http://localhost.evil.example/x.json", local, "uses plain http"},
		{"ftp://example.com/x", remote, `scheme "ftp"`},
		{"javascript:alert(1)", remote, `scheme "javascript"`},
		{"https://user@example.com/x", remote, "user name or password"},
		{"//example.com/x", remote, "not an absolute URL"},
		{"https:///x", remote, "not an absolute URL"},
	} {
		u, err := url.Parse(tc.hop)
		if err != nil {
			t.Fatal(err)
		}
		err = checkHop(u, tc.origin)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkHop(%s from %s) = %v; want allowed", tc.hop, tc.origin, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkHop(%s from %s) = %v; want %q", tc.hop, tc.origin, err, tc.want)
		}
	}
}

func TestRedirectsAreFollowedAndRechecked(t *testing.T) {
	env := newTestEnv(t, Trust{AllowUnsigned: true})
	var refererSeen atomic.Value
	refererSeen.Store("")
	mux := http.NewServeMux()
	mux.HandleFunc("/moved.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, env.fake.url("/index.json"), http.StatusFound)
	})
	mux.HandleFunc("/elsewhere.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://registry.example.invalid/index.json", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/loop.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop.json", http.StatusFound)
	})
	front := httptest.NewServer(mux)
	t.Cleanup(front.Close)
	env.fake.put("/index.json", indexJSON(t, []entry{{"name": "a", "description": "d", "url": "https://example.com/a.md"}}, nil))

	c := New(Options{IndexURL: front.URL + "/moved.json", Dir: env.dir})
	idx, err := c.List(context.Background())
	if err != nil || len(idx.Skills) != 1 {
		t.Fatalf("loopback to loopback redirect: %v", err)
	}
	for _, r := range env.fake.allRequests() {
		if r.Header.Get("Referer") != "" || len(r.Header) != 1 {
			t.Errorf("the redirected request carried %v; want only User-Agent", r.Header)
		}
	}

	before := len(env.fake.allRequests())
	c = New(Options{IndexURL: front.URL + "/elsewhere.json", Dir: env.dir})
	if _, err := c.List(context.Background()); err == nil || !strings.Contains(err.Error(), "refusing the redirect: http://registry.example.invalid/index.json uses plain http") {
		t.Errorf("redirect to remote plain http: %v", err)
	}
	c = New(Options{IndexURL: front.URL + "/loop.json", Dir: env.dir})
	if _, err := c.List(context.Background()); err == nil || !strings.Contains(err.Error(), "more than 5 redirects") {
		t.Errorf("redirect loop: %v", err)
	}
	if len(env.fake.allRequests()) != before {
		t.Error("a refused redirect reached a server")
	}
}

func TestHTTPSRegistry(t *testing.T) {
	acme := newPublisher("acme", 1)
	signed := signedSample(t, acme)
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.json":
			_, _ = w.Write(indexJSON(t, nil, []entry{{"name": "no-sql-edits", "description": "d", "url": srv.URL + "/p.json"}}))
		case "/p.json":
			_, _ = w.Write(signed)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	transport := srv.Client().Transport.(*http.Transport).Clone()
	transport.DisableCompression = true
	c := New(Options{IndexURL: srv.URL + "/index.json", Dir: filepath.Join(t.TempDir(), "r"),
		Trust: Trust{Publishers: acme.configured()}, Transport: transport})
	staged, err := c.Stage(context.Background(), Ref{Name: "no-sql-edits"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Install(staged); err != nil {
		t.Fatal(err)
	}
}

func TestFetchLimitsAndTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared-too-big":
			w.Header().Set("Content-Length", strconv.Itoa(MaxIndexBytes+1))
			_, _ = w.Write([]byte("{"))
		case "/streamed-too-big":
			w.Header().Set("Content-Type", "application/json")
			for range 300 {
				_, _ = w.Write([]byte(strings.Repeat(" ", 1024)))
				w.(http.Flusher).Flush()
			}
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "/error":
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	for path, want := range map[string]string{
		"/declared-too-big": "is 262145 bytes, over the 256 KiB limit",
		"/streamed-too-big": "over the 256 KiB limit",
		"/slow":             "no answer within 50ms",
		"/error":            "the server answered 503 Service Unavailable",
	} {
		timeout := time.Duration(0) // the default
		if path == "/slow" {
			timeout = 50 * time.Millisecond
		}
		c := New(Options{IndexURL: srv.URL + path, Dir: t.TempDir(), Timeout: timeout})
		if _, err := c.List(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
}

func TestDefaultTimeoutIsTwentySeconds(t *testing.T) {
	c := New(Options{})
	if c.opts.Timeout != 20*time.Second {
		t.Errorf("timeout = %s", c.opts.Timeout)
	}
}
