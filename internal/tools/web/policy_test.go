package web

import (
	"net/netip"
	"strings"
	"testing"
)

func TestDefaultPolicyRefusesNonPublic(t *testing.T) {
	for addr, why := range map[string]string{
		"127.0.0.1":                            "loopback",
		"127.255.255.254":                      "loopback",
		"::1":                                  "unspecified, loopback or IPv4-compatible",
		"::":                                   "unspecified, loopback or IPv4-compatible",
		"::127.0.0.1":                          "unspecified, loopback or IPv4-compatible",
		"0.0.0.0":                              "'this network'",
		"0.1.2.3":                              "'this network'",
		"10.1.2.3":                             "private, RFC 1918",
		"172.16.0.1":                           "private, RFC 1918",
		"172.31.255.255":                       "private, RFC 1918",
		"192.168.1.1":                          "private, RFC 1918",
		"169.254.169.254":                      "link-local",
		"100.64.0.1":                           "carrier-grade NAT",
		"100.127.255.255":                      "carrier-grade NAT",
		"192.0.0.8":                            "IETF protocol assignments",
		"192.0.2.1":                            "documentation",
		"198.51.100.7":                         "documentation",
		"203.0.113.9":                          "documentation",
		"198.18.0.1":                           "benchmarking",
		"198.19.255.255":                       "benchmarking",
		"192.88.99.1":                          "6to4 relay anycast",
		"224.0.0.251":                          "multicast",
		"239.255.255.250":                      "multicast",
		"240.0.0.1":                            "reserved or broadcast",
		"255.255.255.255":                      "reserved or broadcast",
		"fe80::1":                              "link-local",
		"fc00::1":                              "unique local, RFC 4193",
		"fd12:3456::1":                         "unique local, RFC 4193",
		"fec0::1":                              "site-local",
		"ff02::1":                              "multicast",
		"100::1":                               "discard-only",
		"2001:db8::1":                          "documentation",
		"3fff::1":                              "documentation",
		"64:ff9b:1::1":                         "local-use NAT64",
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": "IETF special-purpose (Teredo, benchmarking, ORCHID)",
		"2001:2::1":                            "IETF special-purpose (Teredo, benchmarking, ORCHID)",
		"::ffff:127.0.0.1":                     "IPv4-mapped form of 127.0.0.1: loopback",
		"::ffff:10.0.0.1":                      "IPv4-mapped form of 10.0.0.1: private, RFC 1918",
		"::ffff:169.254.169.254":               "IPv4-mapped form of 169.254.169.254: link-local",
		"64:ff9b::10.0.0.1":                    "NAT64 form of 10.0.0.1: private, RFC 1918",
		"64:ff9b::7f00:1":                      "NAT64 form of 127.0.0.1: loopback",
		"2002:a00:1::1":                        "6to4 form of 10.0.0.1: private, RFC 1918",
		"2002:c0a8:101::":                      "6to4 form of 192.168.1.1: private, RFC 1918",
		"4000::1":                              "not global unicast",
		"fe80::1%eth0":                         "it has a zone",
		"2606:4700:4700::1111%eth0":            "it has a zone",
	} {
		a := netip.MustParseAddr(addr)
		err := DefaultPolicy(a)
		if err == nil {
			t.Errorf("%s: admitted", addr)
			continue
		}
		if want := a.String() + " is not a public address (" + why + ")"; err.Error() != want {
			t.Errorf("%s:\n got %q\nwant %q", addr, err, want)
		}
	}
}

func TestDefaultPolicyAdmitsPublic(t *testing.T) {
	for _, addr := range []string{
		"1.1.1.1", "8.8.8.8", "93.184.216.34", "172.32.0.1", "100.128.0.1", "192.0.3.1", "223.255.255.254",
		"2606:4700:4700::1111", "2a00:1450:4001:81b::200e",
		"::ffff:1.1.1.1", "64:ff9b::1.1.1.1", "2002:101:101::1",
	} {
		if err := DefaultPolicy(netip.MustParseAddr(addr)); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := DefaultPolicy(netip.Addr{}); err == nil {
		t.Error("the zero address is admitted")
	}
}

func TestNumericHostForms(t *testing.T) {
	for host, numeric := range map[string]bool{
		"2130706433": true, "0x7f000001": true, "0X7F000001": true, "0177.0.0.1": true, "127.1": true,
		"0x7f.0.0.1": true, "127.0.0.1.": true, "10.0.0.1.": true, "0x": true, "1.2.3.04": true,
		"example.com": false, "1e100.net": false, "localhost": false, "x.0xg": false, "v4.example.": false,
	} {
		if got := endsInNumber(host); got != numeric {
			t.Errorf("endsInNumber(%q) = %v", host, got)
		}
		_, err := literalAddr(host, func(netip.Addr) error { return nil })
		if numeric && (err == nil || !strings.Contains(err.Error(), "is a number in a non-standard form")) {
			t.Errorf("%s: %v", host, err)
		}
	}
}
