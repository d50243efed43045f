package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// remote serves testServer over HTTP, refusing requests without the
// expected Authorization header.
func remote(t *testing.T, sse bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	srv := testServer()
	var h http.Handler
	if sse {
		h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	} else {
		h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	}
	var refused atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			refused.Add(1)
			http.Error(w, "who are you?", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &refused
}

func TestRemoteServersWithHeadersFromTheEnvironment(t *testing.T) {
	for _, kind := range []string{"http", "sse"} {
		t.Run(kind, func(t *testing.T) {
			ts, refused := remote(t, kind == "sse")
			def := fmt.Sprintf(`{"type":%q,"url":%q,"headers":{"Authorization":"Bearer ${API_TOKEN}"}}`, kind, ts.URL)
			f := newFixture(t, defs(t, OriginUser, map[string]string{"r": def}), func(o *Options) {
				o.Getenv = func(k string) string {
					if k == "API_TOKEN" {
						return "s3cret"
					}
					return ""
				}
			})
			tools, _ := f.m.Turn(context.Background())
			out, err := invoke(t, tooltest.Named(t, tools, "mcp__r__echo"), `{"message":"over `+kind+`"}`)
			if err != nil || out != "echo: over "+kind {
				t.Fatalf("echo = %q, %v (status %+v)", out, err, f.status("r"))
			}
			if refused.Load() != 0 {
				t.Errorf("%d requests went without the configured header", refused.Load())
			}
			if st := f.status("r"); st.Transport != kind || st.State != StateReady {
				t.Errorf("status = %+v", st)
			}
		})
	}
}

func TestRemoteServerWithoutItsVariableDoesNotStart(t *testing.T) {
	ts, refused := remote(t, false)
	def := fmt.Sprintf(`{"url":%q,"headers":{"Authorization":"Bearer ${API_TOKEN}"}}`, ts.URL)
	f := newFixture(t, defs(t, OriginUser, map[string]string{"r": def}), func(o *Options) { o.Getenv = func(string) string { return "" } })
	tools, _ := f.m.Turn(context.Background())
	if len(tools) != 0 {
		t.Error("tools of a server that could not start were offered")
	}
	if st := f.status("r"); st.State != StateFailed || !strings.Contains(st.Error, "headers.Authorization refers to ${API_TOKEN}, which is not set") {
		t.Errorf("status = %+v", st)
	}
	if refused.Load() != 0 {
		t.Error("a request went out with the reference unexpanded")
	}
	if n := f.notices.all(); len(n) != 1 {
		t.Errorf("the failure was not reported once: %q", n)
	}
}

// A URL is checked again once its variables are expanded, as strictly as
// when it was written: an empty host is refused before any request.
func TestRemoteURLIsCheckedOnceExpanded(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"r": `{"url":"https://${MCP_HOST:-}/mcp"}`}),
		func(o *Options) { o.Getenv = func(string) string { return "" } })
	f.m.Turn(context.Background())
	if st := f.status("r"); st.State != StateFailed || !strings.Contains(st.Error, `url "https:///mcp" is not an http:// or https:// address`) {
		t.Errorf("status = %+v", st)
	}
}

func TestPromptsBecomeCommands(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	if len(f.m.Prompts()) != 0 {
		t.Error("prompts were listed before the server started")
	}
	f.m.Turn(context.Background())
	ps := f.m.Prompts()
	if len(ps) != 1 || ps[0].Name != "mcp__t__review" || ps[0].Usage() != "FILE [FOCUS]" || ps[0].Summary != "Review a file." {
		t.Fatalf("prompts = %+v", ps)
	}
	for args, want := range map[string]string{
		`main.go`:                     "Please review main.go",
		`main.go error handling`:      "Please review main.go with a focus on error handling",
		`focus="naming" file=util.go`: "Please review util.go with a focus on naming",
		`"my file.go" 'the tests'`:    "Please review my file.go with a focus on the tests",
	} {
		got, err := f.m.RunPrompt(context.Background(), "mcp__t__review", args)
		if err != nil || got != want {
			t.Errorf("/mcp__t__review %s = %q, %v; want %q", args, got, err, want)
		}
	}
	if _, err := f.m.RunPrompt(context.Background(), "mcp__t__review", ""); err == nil || !strings.Contains(err.Error(), "needs file: usage /mcp__t__review FILE [FOCUS]") {
		t.Errorf("missing argument: %v", err)
	}
}

func TestResourcesAreAttachedByMention(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	text, notices := f.m.Attach(context.Background(), "summarise @t:test://doc. and mail me@example.com:25 about @nobody:x")
	want := "summarise @t:test://doc. and mail me@example.com:25 about @nobody:x\n\n" +
		"[attached resource @t:test://doc]\n[resource test://doc, text/plain]\nthe document body\n[end of @t:test://doc]"
	if text != want || len(notices) != 0 {
		t.Errorf("attached:\n%s\nnotices %q", text, notices)
	}
	if typed, names := SplitAttached(text); typed != "summarise @t:test://doc. and mail me@example.com:25 about @nobody:x" ||
		len(names) != 1 || names[0] != "@t:test://doc" {
		t.Errorf("SplitAttached = %q, %q", typed, names)
	}
	text, notices = f.m.Attach(context.Background(), "@t:test://missing")
	if text != "@t:test://missing" || len(notices) != 1 || !strings.Contains(notices[0], "could not attach @t:test://missing") {
		t.Errorf("a missing resource: %q, %q", text, notices)
	}
}
