package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// authServer is an MCP server behind OAuth with its own authorization
// server, both on loopback: discovery, dynamic registration, an authorize
// endpoint that signs the visitor in at once, and a token endpoint that
// checks the PKCE verifier.
type authServer struct {
	base       string
	mu         sync.Mutex
	challenges map[string]string // code → PKCE challenge
	issued     atomic.Int32
	registered atomic.Int32
}

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	a := &authServer{challenges: map[string]string{}}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer token-1" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.base+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"resource": a.base + "/mcp", "authorization_servers": []string{a.base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": a.base, "authorization_endpoint": a.base + "/authorize", "token_endpoint": a.base + "/token",
			"registration_endpoint": a.base + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.registered.Add(1)
		var meta map[string]any
		_ = json.NewDecoder(r.Body).Decode(&meta)
		meta["client_id"] = "client-1"
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, meta)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		code := fmt.Sprintf("code-%d", len(a.challenges)+1)
		a.challenges[code] = q.Get("code_challenge")
		a.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := back.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		challenge := a.challenges[r.Form.Get("code")]
		a.mu.Unlock()
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if challenge == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		a.issued.Add(1)
		writeJSON(w, map[string]any{"access_token": "token-1", "token_type": "Bearer", "refresh_token": "refresh-1", "expires_in": 3600})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	// The SDK refuses IP literals of non-public addresses; localhost is a
	// loopback name it accepts.
	a.base = strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// A server that asks for OAuth is signed in to through the person's
// browser (here, a client that follows the redirects), and the token is
// kept, 0600, for the next session, which starts without signing in.
func TestOAuthSignInIsKeptForTheNextSession(t *testing.T) {
	as := newAuthServer(t)
	authDir := filepath.Join(t.TempDir(), "oauth")
	var shown []string
	browser := func(_ string, page string) {
		shown = append(shown, page)
		resp, err := http.Get(page) // follows the redirect back to shiro's loopback listener
		if err != nil {
			t.Errorf("the browser could not finish: %v", err)
			return
		}
		resp.Body.Close()
	}
	ds := defs(t, OriginUser, map[string]string{"secure": fmt.Sprintf(`{"type":"http","url":%q}`, as.base+"/mcp")})
	first := newFixture(t, ds, func(o *Options) { o.AuthDir, o.Authorize = authDir, browser })
	tools, _ := first.m.Turn(context.Background())
	out, err := invoke(t, tooltest.Named(t, tools, "mcp__secure__echo"), `{"message":"signed in"}`)
	if err != nil || out != "echo: signed in" {
		t.Fatalf("echo = %q, %v (status %+v)", out, err, first.status("secure"))
	}
	if len(shown) != 1 || !strings.HasPrefix(shown[0], as.base+"/authorize?") || !strings.Contains(shown[0], "code_challenge_method=S256") {
		t.Fatalf("sign-in pages shown: %q", shown)
	}
	files, _ := filepath.Glob(filepath.Join(authDir, "secure-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	fi, _ := os.Stat(files[0])
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	first.m.Close()
	if log, _ := os.ReadFile(first.status("secure").Log); strings.Contains(string(log), "token-1") || strings.Contains(string(log), "refresh-1") {
		t.Error("a token was written to the server's log")
	}

	second := newFixture(t, ds, func(o *Options) {
		o.AuthDir = authDir
		o.Authorize = func(string, string) { t.Error("the second session asked to sign in again") }
	})
	tools, _ = second.m.Turn(context.Background())
	if out, err := invoke(t, tooltest.Named(t, tools, "mcp__secure__echo"), `{"message":"again"}`); err != nil || out != "echo: again" {
		t.Fatalf("with the kept token: %q, %v", out, err)
	}
	if as.issued.Load() != 1 || as.registered.Load() != 1 {
		t.Errorf("tokens issued %d, clients registered %d; want 1 and 1", as.issued.Load(), as.registered.Load())
	}
}

// Headless, nobody can sign in: the server does not start, and the
// message says how to fix it.
func TestOAuthWithoutAPersonSaysWhatToDo(t *testing.T) {
	as := newAuthServer(t)
	ds := defs(t, OriginUser, map[string]string{"secure": fmt.Sprintf(`{"type":"http","url":%q}`, as.base+"/mcp")})
	f := newFixture(t, ds, func(o *Options) { o.AuthDir = filepath.Join(t.TempDir(), "oauth") })
	f.m.Turn(context.Background())
	if st := f.status("secure"); st.State != StateFailed || !strings.Contains(st.Error, "run shiro interactively once to sign in") {
		t.Errorf("status = %+v", st)
	}
}
