package sandbox

import (
	"fmt"
	"strings"
)

// A pathname Unix socket is a door to a process outside the sandbox: a
// tmux or screen server runs what it is sent, a Docker daemon starts
// containers as root, an SSH agent signs, a D-Bus session bus starts
// services. Sockets are not "the network": they are refused whether
// sandbox.network is on or off, in every mode but off.
//
// Landlock 9 and later filter the connect by path (RESOLVE_UNIX, in the
// write rights, so sockets in the writable folders still work, and in a
// rule for each socket of sandbox.unixSockets). Before that, a seccomp
// filter refuses socket(AF_UNIX) itself, since the path a connect names
// cannot be inspected; sandbox.unixSockets can then only open all of them
// or none, and opens all of them. Abstract sockets are scoped by Landlock
// 6 and later, and refused with the rest by the filter before 9.

// seccompFilter is what the helper's filter refuses under this sandbox.
func (s *Sandbox) seccompFilter() seccompFilter {
	var f seccompFilter
	if !s.policy.Network {
		f.Inet = seccompNoInet
		if s.abi >= 4 {
			f.Inet = seccompStreamOnly
		}
	}
	f.NoUnix = !s.landlockFiltersUnix() && len(s.policy.UnixSockets) == 0
	return f
}

// landlockFiltersUnix reports whether this kernel's Landlock filters
// connections to pathname Unix sockets.
func (s *Sandbox) landlockFiltersUnix() bool { return s.abi >= 9 }

// socketsStatus says what commands may connect to over Unix sockets.
func (s *Sandbox) socketsStatus() string {
	allowed := strings.Join(s.policy.UnixSockets, ", ")
	switch {
	case s.policy.Mode == Off:
		return "not filtered: the sandbox is off"
	case s.landlockFiltersUnix() && allowed == "":
		return "connecting to a Unix socket outside the writable folders is refused by Landlock; abstract sockets outside the sandbox too"
	case s.landlockFiltersUnix():
		return "connecting to a Unix socket outside the writable folders is refused by Landlock, but for sandbox.unixSockets: " + allowed
	case !s.seccomp:
		return fmt.Sprintf("NOT filtered: Landlock ABI %d cannot filter socket paths and there is no seccomp filter here, so a command reaches every socket it can name (tmux, Docker, an SSH agent)", s.abi)
	case allowed == "":
		return fmt.Sprintf("every Unix socket refused by a seccomp filter (Landlock ABI %d cannot filter socket paths, so none can be made, inside the workspace or out; socketpair works)", s.abi)
	}
	return fmt.Sprintf("NOT filtered: sandbox.unixSockets (%s) is set, and Landlock ABI %d cannot allow single sockets, so a command reaches every socket it can name; Landlock ABI 9 allows exactly the listed ones", allowed, s.abi)
}
