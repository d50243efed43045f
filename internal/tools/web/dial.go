package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Resolver looks up the addresses of a host name.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// SystemResolver resolves with the operating system's resolver.
func SystemResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// refusal is an error that says web_fetch will not go somewhere.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }

func refusef(format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...)}
}

// checkURL vets a URL before any request: the scheme, credentials, and a
// host written as an IP address in any form. Host names are checked when
// they are resolved, at connect time.
func checkURL(u *url.URL, policy AddressPolicy) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return refusef("web_fetch only fetches http and https URLs, not %q", u.Scheme+":")
	}
	if u.User != nil {
		return refusef("web_fetch does not send credentials; remove the user name or password from the URL")
	}
	host := u.Hostname()
	if host == "" {
		return refusef("the URL %q has no host", u.Redacted())
	}
	_, err := literalAddr(host, policy)
	return err
}

// literalAddr checks a host that is an IP address. It returns ok=false for
// a host name, and refuses numbers in forms resolvers accept but that are
// not plain dotted IPv4 or IPv6 (http://2130706433/, http://0x7f.1/,
// http://0177.0.0.1/), since those are how private hosts are smuggled past
// checks of the name.
func literalAddr(host string, policy AddressPolicy) (ok bool, err error) {
	if strings.Contains(host, "%") {
		return false, refusef("the host %q has an IPv6 zone; web_fetch fetches public addresses only", host)
	}
	if addr, perr := netip.ParseAddr(host); perr == nil {
		if err := policy(addr); err != nil {
			return false, refusef("refusing to fetch from %s: %v", host, err)
		}
		return true, nil
	}
	if endsInNumber(host) {
		return false, refusef("the host %q is a number in a non-standard form; write an IPv4 address as four decimal parts (web_fetch fetches public addresses only)", host)
	}
	return false, nil
}

// endsInNumber reports whether a host's last label is a decimal, octal or
// hex number, which URL parsers and resolvers read as an IPv4 address.
func endsInNumber(host string) bool {
	h := strings.TrimSuffix(host, ".")
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	digits := last
	base := "0123456789"
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		digits, base = last[2:], "0123456789abcdefABCDEF"
	}
	for _, r := range digits {
		if !strings.ContainsRune(base, r) {
			return false
		}
	}
	return true
}

// guardedDialer connects only to addresses the policy admits. It
// resolves a host once, refuses it if ANY of its addresses is refused,
// and dials those same addresses (never the name again); the socket's
// Control hook re-checks the address actually connected to.
type guardedDialer struct {
	policy  AddressPolicy
	resolve Resolver
	dialer  net.Dialer
}

func newGuardedDialer(policy AddressPolicy, resolve Resolver) *guardedDialer {
	g := &guardedDialer{policy: policy, resolve: resolve}
	g.dialer = net.Dialer{Timeout: 10 * time.Second, Control: g.control}
	return g
}

// control runs just before each connect, with the numeric address.
func (g *guardedDialer) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refusef("refusing to connect to %q: not a numeric address", address)
	}
	if err := g.policy(ap.Addr()); err != nil {
		return refusef("refusing to connect to %s: %v", ap.Addr(), err)
	}
	return nil
}

// DialContext is the transport's dialer.
func (g *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q", address)
	}
	addrs, err := g.addresses(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		conn, err := g.dialer.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// addresses returns the checked addresses of host: the host itself when
// it is an IP address, else everything it resolves to, all admitted.
func (g *guardedDialer) addresses(ctx context.Context, host string) ([]netip.Addr, error) {
	if isLiteral, err := literalAddr(host, g.policy); err != nil {
		return nil, err
	} else if isLiteral {
		return []netip.Addr{netip.MustParseAddr(host).Unmap()}, nil
	}
	found, err := g.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	addrs := make([]netip.Addr, 0, len(found))
	for _, a := range found {
		if err := g.policy(a); err != nil {
			return nil, refusef("refusing to fetch from %s: it resolves to %v", host, err)
		}
		addrs = append(addrs, a.Unmap())
	}
	return addrs, nil
}
