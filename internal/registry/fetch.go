package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects bounds the hops of one GET.
const maxRedirects = 5

// checkURL enforces the scheme rule on a URL from config or from the index:
// https, or plain http only to this machine (for tests and local mirrors).
// Credentials in the URL are refused, because the registry needs no account
// and a URL must not smuggle one into a request.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if err := checkHop(u, u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkHop applies the scheme rule to a request for u that started at
// origin. Plain http is allowed only when both are on this machine, so a
// remote server cannot bounce the request to a local service.
func checkHop(u, origin *url.URL) error {
	if u.User != nil {
		return fmt.Errorf("%s carries a user name or password; registry URLs must not, since no account is used", redact(u))
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
	case "":
		return fmt.Errorf("%q is not an absolute URL; write it in full, starting with https://", u.String())
	default:
		return fmt.Errorf("%s: the scheme %q is not allowed; use https", u.String(), u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL; write it in full, starting with https://", u.String())
	}
	if strings.EqualFold(u.Scheme, "http") && !(isLoopback(u.Hostname()) && isLoopback(origin.Hostname())) {
		return fmt.Errorf("%s uses plain http; only https is allowed (plain http only for localhost, 127.0.0.1 or ::1)", u.String())
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redact drops the credentials from a URL before it is shown.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// defaultTransport is http.DefaultTransport without transparent gzip, so
// that the request carries no header other than the User-Agent.
func defaultTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	return t
}

// fetch makes one GET of rawURL and returns at most limit bytes of a 200
// response. what names the thing for messages ("the registry index"). The
// request carries only a User-Agent: no cookies, no credentials, no
// Referer on a redirect.
func (c *Client) fetch(ctx context.Context, what, rawURL string, limit int) ([]byte, error) {
	u, err := checkURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("User-Agent", userAgent())
	client := &http.Client{Transport: c.transport, CheckRedirect: func(next *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if err := checkHop(next.URL, via[0].URL); err != nil {
			return fmt.Errorf("refusing the redirect: %w", err)
		}
		next.Header.Del("Referer")
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("fetching %s from %s: no answer within %s", what, u, c.opts.Timeout)
		}
		return nil, fmt.Errorf("fetching %s from %s: %w", what, u, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s from %s: the server answered %s", what, u, resp.Status)
	}
	if resp.ContentLength > int64(limit) {
		return nil, fmt.Errorf("%s at %s is %d bytes, over the %d KiB limit", what, u, resp.ContentLength, limit>>10)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s from %s: %w", what, u, err)
	}
	if len(body) > limit {
		return nil, fmt.Errorf("%s at %s is over the %d KiB limit", what, u, limit>>10)
	}
	return body, nil
}

// unwrapURLError drops the "Get \"…\":" prefix that repeats the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
