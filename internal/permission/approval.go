package permission

import (
	"fmt"
	"strings"
)

// Approval is when the person is asked about a command, named as Codex
// users know the policies. It decides only what the rules leave open: an
// explicit ask or deny rule of yours or of the project still stands, and a
// rule of yours that allows still allows.
type Approval int

const (
	// OnRequest, the default: a command the sandbox fully contains runs
	// without asking; a command that would leave it (the network, a path
	// outside the writable folders, anything the sandbox cannot hold)
	// asks, and so does every command where the sandbox is partial or off.
	OnRequest Approval = iota
	// Untrusted: the sandbox lifts no ask, so every command your rules do
	// not allow asks, contained or not.
	Untrusted
	// Never: nobody is asked. What OnRequest runs without asking runs; what
	// it would ask about is refused, and a sandbox denial is reported, not
	// offered.
	Never
)

// Approvals are the policies, as the config key and the flag spell them.
func Approvals() []string { return []string{"untrusted", "on-request", "never"} }

// ParseApproval reads a policy as config and --approval spell it; "" is
// the default, OnRequest.
func ParseApproval(s string) (Approval, error) {
	switch strings.TrimSpace(s) {
	case "", "on-request":
		return OnRequest, nil
	case "untrusted":
		return Untrusted, nil
	case "never":
		return Never, nil
	}
	return OnRequest, fmt.Errorf("unknown approval policy %q; the policies are %s", s, strings.Join(Approvals(), ", "))
}

func (a Approval) String() string {
	switch a {
	case Untrusted:
		return "untrusted"
	case Never:
		return "never"
	}
	return "on-request"
}
