package web

import (
	"fmt"
	"net/netip"
)

// AddressPolicy decides whether web_fetch may connect to an address. It
// returns an error saying why not.
type AddressPolicy func(netip.Addr) error

// blockedRange is an address range web_fetch never connects to.
type blockedRange struct {
	prefix netip.Prefix
	why    string
}

// blockedV4 lists the IPv4 ranges that are not public unicast (RFC 6890
// and its successors).
func blockedV4() []blockedRange {
	return []blockedRange{
		{netip.MustParsePrefix("0.0.0.0/8"), "'this network'"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private, RFC 1918"},
		{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private, RFC 1918"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
		{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
		{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private, RFC 1918"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
		{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
		{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},
	}
}

// blockedV6 lists the IPv6 ranges refused outright. The forms that embed
// an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
func blockedV6() []blockedRange {
	return []blockedRange{
		// ::/96 holds the unspecified address, loopback and the deprecated
		// IPv4-compatible addresses (::a.b.c.d).
		{netip.MustParsePrefix("::/96"), "unspecified, loopback or IPv4-compatible"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
		{netip.MustParsePrefix("100::/64"), "discard-only"},
		// 2001::/23 is IETF special-purpose space: Teredo (2001::/32),
		// benchmarking, ORCHID. No ordinary web server lives there.
		{netip.MustParsePrefix("2001::/23"), "IETF special-purpose (Teredo, benchmarking, ORCHID)"},
		{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
		{netip.MustParsePrefix("3fff::/20"), "documentation"},
		{netip.MustParsePrefix("5f00::/16"), "segment routing"},
		{netip.MustParsePrefix("fc00::/7"), "unique local, RFC 4193"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("fec0::/10"), "site-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
}

// DefaultPolicy admits public unicast addresses only. It refuses loopback,
// private, link-local, CGNAT, unspecified, multicast, broadcast,
// documentation, benchmarking and reserved ranges; IPv6 outside global
// unicast (2000::/3); and IPv6 forms that carry a refused IPv4 address:
// IPv4-mapped (::ffff:10.0.0.1), NAT64 (64:ff9b::/96) and 6to4
// (2002::/16). Addresses with a zone are refused.
func DefaultPolicy(addr netip.Addr) error {
	if !addr.IsValid() {
		return fmt.Errorf("invalid address")
	}
	if why := nonPublic(addr); why != "" {
		return fmt.Errorf("%s is not a public address (%s)", addr, why)
	}
	return nil
}

// nonPublic says why addr is not public, or returns "" when it is.
func nonPublic(addr netip.Addr) string {
	if addr.Zone() != "" {
		return "it has a zone"
	}
	if addr.Is4In6() {
		return embedded(addr.Unmap(), "IPv4-mapped")
	}
	if addr.Is4() {
		for _, r := range blockedV4() {
			if r.prefix.Contains(addr) {
				return r.why
			}
		}
		return ""
	}
	for _, r := range blockedV6() {
		if r.prefix.Contains(addr) {
			return r.why
		}
	}
	b := addr.As16()
	if netip.MustParsePrefix("64:ff9b::/96").Contains(addr) {
		return embedded(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64")
	}
	if netip.MustParsePrefix("2002::/16").Contains(addr) {
		return embedded(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4")
	}
	if !netip.MustParsePrefix("2000::/3").Contains(addr) {
		return "not global unicast"
	}
	return ""
}

// embedded judges an IPv6 address by the IPv4 address it carries.
func embedded(v4 netip.Addr, form string) string {
	if why := nonPublic(v4); why != "" {
		return fmt.Sprintf("%s form of %s: %s", form, v4, why)
	}
	return ""
}
