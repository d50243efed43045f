package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// authWait is how long the person has to finish signing in once the
// authorization page was shown; the server's start waits as long.
const authWait = 5 * time.Minute

// authStore runs the OAuth authorization-code flow (with PKCE, through the
// SDK) for remote servers that ask for it, and keeps the tokens it gets in
// 0600 files under the user's shiro state, so a later session starts
// without signing in again. Tokens never go into logs or messages.
type authStore struct {
	dir string
	// authorize shows the person the page to sign in on; nil when nobody
	// is there to (a headless run).
	authorize func(server, url string)
	notice    func(string)
	mu        sync.Mutex // serialises token files
}

// savedAuth is one server's token file.
type savedAuth struct {
	URL          string        `json:"url"`
	ClientID     string        `json:"clientId"`
	ClientSecret string        `json:"clientSecret,omitempty"`
	AuthURL      string        `json:"authURL"`
	TokenURL     string        `json:"tokenURL"`
	AuthStyle    int           `json:"authStyle"`
	Scopes       []string      `json:"scopes,omitempty"`
	RedirectURL  string        `json:"redirectURL"`
	Token        *oauth2.Token `json:"token"`
}

func (a *authStore) file(server, url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(a.dir, server+"-"+hex.EncodeToString(sum[:])[:12]+".json")
}

func (a *authStore) load(server, url string) *savedAuth {
	if a.dir == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b, err := os.ReadFile(a.file(server, url))
	if err != nil {
		return nil
	}
	var s savedAuth
	if json.Unmarshal(b, &s) != nil || s.Token == nil || s.URL != url {
		return nil
	}
	return &s
}

func (a *authStore) save(server string, s savedAuth) {
	if a.dir == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b, err := json.MarshalIndent(s, "", "  ")
	if err == nil {
		err = fsutil.WriteFileAtomic(a.file(server, s.URL), append(b, '\n'), 0o600)
	}
	if err != nil && a.notice != nil {
		a.notice(fmt.Sprintf("MCP server %s: the sign-in worked, but it could not be kept for later sessions: %v", server, err))
	}
}

// handler is the OAuth handler of one remote server: it answers a 401 by
// running the flow, and starts from the saved token when there is one.
// Its requests to the authorization server carry none of the MCP server's
// headers.
func (a *authStore) handler(server string, e Endpoint) (auth.OAuthHandler, error) {
	saved := a.load(server, e.URL)
	redirect := ""
	switch {
	case e.OAuth != nil && e.OAuth.CallbackPort > 0:
		redirect = loopback(e.OAuth.CallbackPort)
	case saved != nil && saved.RedirectURL != "":
		redirect = saved.RedirectURL
	default:
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("choosing a port for the OAuth redirect: %w", err)
		}
		redirect = loopback(port)
	}
	// An explicit transport also opts out of the SDK's discovery dialer,
	// which refuses loopback addresses (a local authorization server).
	authClient := &http.Client{Transport: http.DefaultTransport}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: a.fetcher(server, redirect),
		RequestRefreshToken:      true,
		Client:                   authClient,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			s := savedAuth{
				URL: e.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret, AuthURL: c.Endpoint.AuthURL,
				TokenURL: c.Endpoint.TokenURL, AuthStyle: int(c.Endpoint.AuthStyle), Scopes: c.Scopes, RedirectURL: redirect,
			}
			return &keptSource{src: c.TokenSource(ctx, tok), keep: func(t *oauth2.Token) { s.Token = t; a.save(server, s) }}, nil
		},
	}
	if o := e.OAuth; o != nil && o.ClientID != "" {
		creds := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = creds
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "shiro", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}}
	}
	if o := e.OAuth; o != nil && len(o.Scopes) > 0 {
		cfg.ScopeFilter = func([]string) []string { return o.Scopes }
	}
	if saved != nil {
		c := &oauth2.Config{
			ClientID: saved.ClientID, ClientSecret: saved.ClientSecret, Scopes: saved.Scopes, RedirectURL: saved.RedirectURL,
			Endpoint: oauth2.Endpoint{AuthURL: saved.AuthURL, TokenURL: saved.TokenURL, AuthStyle: oauth2.AuthStyle(saved.AuthStyle)},
		}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, authClient)
		s := *saved
		cfg.InitialTokenSource = &keptSource{src: c.TokenSource(ctx, saved.Token), last: saved.Token.AccessToken,
			keep: func(t *oauth2.Token) { s.Token = t; a.save(server, s) }}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

func loopback(port int) string { return "http://localhost:" + strconv.Itoa(port) + "/callback" }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// keptSource saves every new token its source hands out (a refresh).
type keptSource struct {
	src  oauth2.TokenSource
	keep func(*oauth2.Token)
	mu   sync.Mutex
	last string
}

func (k *keptSource) Token() (*oauth2.Token, error) {
	t, err := k.src.Token()
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	changed := t.AccessToken != k.last
	k.last = t.AccessToken
	k.mu.Unlock()
	if changed {
		k.keep(t)
	}
	return t, nil
}

// fetcher shows the person the authorization page and waits, on the
// loopback redirect, for the browser to come back with the code.
func (a *authStore) fetcher(server, redirect string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if a.authorize == nil {
			return nil, fmt.Errorf("MCP server %s asks you to sign in, and nobody is here to open the page: run shiro interactively once to sign in (the token is kept for later runs)", server)
		}
		holdStart(ctx, authWait)
		u, err := http.NewRequest(http.MethodGet, redirect, nil)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", u.URL.Port()))
		if err != nil {
			return nil, fmt.Errorf("MCP server %s: listening for the sign-in redirect on %s: %w", server, redirect, err)
		}
		results := make(chan *auth.AuthorizationResult, 1)
		failures := make(chan error, 1)
		mux := http.NewServeMux()
		mux.HandleFunc(u.URL.Path, func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if e := q.Get("error"); e != "" {
				fmt.Fprintf(w, "<p>Signing in to %s failed: %s. You can close this page.</p>", html.EscapeString(server), html.EscapeString(e))
				select {
				case failures <- fmt.Errorf("MCP server %s: the sign-in was refused (%s %s)", server, e, q.Get("error_description")):
				default:
				}
				return
			}
			fmt.Fprintf(w, "<p>Signed in to %s. You can close this page and go back to shiro.</p>", html.EscapeString(server))
			select {
			case results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
			default:
			}
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		a.authorize(server, args.URL)
		timeout := time.NewTimer(authWait)
		defer timeout.Stop()
		select {
		case r := <-results:
			return r, nil
		case err := <-failures:
			return nil, err
		case <-timeout.C:
			return nil, fmt.Errorf("MCP server %s: nobody finished signing in within %s", server, authWait)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// startClock is the start timeout of a server being started, which the
// sign-in flow holds off while the person signs in.
type startClock struct{ timer *time.Timer }

type startClockKey struct{}

// holdStart gives the start in ctx at least d more.
func holdStart(ctx context.Context, d time.Duration) {
	if c, ok := ctx.Value(startClockKey{}).(*startClock); ok {
		c.timer.Reset(d)
	}
}
