package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// atonIPv4 reads host the way permissive resolvers (inet_aton) and URL
// parsers do: one to four parts, each decimal, octal (leading 0) or hex
// (0x). It is the test's oracle for "a resolver could take this for an
// IPv4 address".
func atonIPv4(host string) bool {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				continue
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if _, err := strconv.ParseUint(digits, base, 64); err != nil {
			return false
		}
	}
	return true
}

// FuzzHostCheck: the host check never panics; anything a permissive
// resolver could read as an IPv4 address is either a plain address that
// the policy judged, or refused outright; and a host it calls a literal
// is one netip parses and the policy admits.
func FuzzHostCheck(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.01", "::1", "fe80::1%eth0", "example.com", "1.2.3.4.", "0x", "a.0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		literal, err := literalAddr(host, DefaultPolicy)
		if literal {
			a, perr := netip.ParseAddr(host)
			if perr != nil || DefaultPolicy(a) != nil || err != nil {
				t.Fatalf("%q taken as an admitted literal: %v %v", host, perr, err)
			}
		}
		if atonIPv4(host) && err == nil {
			a, perr := netip.ParseAddr(host)
			if perr != nil || DefaultPolicy(a) != nil {
				t.Fatalf("%q reads as an IPv4 address but passed the check", host)
			}
		}
	})
}

// FuzzReadPage feeds arbitrary bodies and content types to the page
// reader: it never panics, and whatever it returns is valid UTF-8 with no
// NUL byte.
func FuzzReadPage(f *testing.F) {
	f.Add([]byte("<html><body><h1>x</h1><a href='/y'>y</a></body></html>"), "text/html")
	f.Add([]byte("caf\xe9"), "text/plain; charset=iso-8859-1")
	f.Add([]byte("\xff\xfeh\x00i\x00"), "")
	f.Add([]byte("plain"), "text/plain; charset=bogus")
	f.Add([]byte("%PDF-1.4"), "text/plain")
	final, _ := url.Parse("https://example.test/a/b")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		resp := &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
		if contentType != "" {
			resp.Header.Set("Content-Type", contentType)
		}
		pg, err := readPage(context.Background(), resp, []*url.URL{final})
		if err != nil {
			return
		}
		if !utf8.ValidString(pg.text) || strings.ContainsRune(pg.text, 0) {
			t.Fatalf("page text %q", pg.text)
		}
		out := pg.render(MinChars)
		if !strings.HasPrefix(out, "https://example.test/a/b\n\n") {
			t.Fatalf("render %q", out)
		}
	})
}
