package sandbox

import (
	"fmt"
	"strings"
)

// Mode is how much a command may do, named as Codex users know it.
type Mode int

const (
	// WorkspaceWrite, the default: read anywhere but the secret
	// locations, write the workspace, the temp dir and the configured
	// writable paths, no network unless configured.
	WorkspaceWrite Mode = iota
	// ReadOnly: read as in WorkspaceWrite, write nothing (but /dev/null
	// and the terminal devices), no network unless configured.
	ReadOnly
	// Off: no confinement. Commands are still supervised, so nothing they
	// start outlives them.
	Off
)

// Modes are the modes, as config and the flag spell them.
func Modes() []string { return []string{"read-only", "workspace-write", "off"} }

// ParseMode reads a mode as config and the flag spell it; "" is the
// default, WorkspaceWrite.
func ParseMode(s string) (Mode, error) {
	switch strings.TrimSpace(s) {
	case "", "workspace-write":
		return WorkspaceWrite, nil
	case "read-only":
		return ReadOnly, nil
	case "off":
		return Off, nil
	}
	return WorkspaceWrite, fmt.Errorf("unknown sandbox mode %q; the modes are %s", s, strings.Join(Modes(), ", "))
}

func (m Mode) String() string {
	switch m {
	case ReadOnly:
		return "read-only"
	case Off:
		return "off"
	}
	return "workspace-write"
}

// Stricter reports whether m confines more than other: read-only is
// stricter than workspace-write, which is stricter than off. A project's
// config may only choose a stricter mode.
func (m Mode) Stricter(other Mode) bool { return m.rank() > other.rank() }

func (m Mode) rank() int {
	switch m {
	case ReadOnly:
		return 2
	case Off:
		return 0
	}
	return 1
}
