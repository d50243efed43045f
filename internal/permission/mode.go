package permission

import (
	"fmt"
	"strings"
)

// Mode is the session's permission mode, switched by the person while
// they work (shift-tab, --permission-mode, an editor's session mode). It
// sits on top of the rules and never loosens a guard, a hook or a rule
// that denies: it only changes what happens to a call that would ask.
type Mode int

const (
	// ModeDefault asks as the rules say.
	ModeDefault Mode = iota
	// ModeAcceptEdits approves edits of files inside the workspace that
	// would otherwise ask; commands and everything else still ask.
	ModeAcceptEdits
	// ModePlan is read-only: every call that would change something is
	// refused, and the model presents a plan for the person to approve.
	ModePlan
)

// Modes are the modes in the order shift-tab cycles through them, as
// --permission-mode and the protocol spell them.
func Modes() []Mode { return []Mode{ModeDefault, ModeAcceptEdits, ModePlan} }

// ParseMode reads a mode as shiro spells it or as Claude Code does
// (acceptEdits); "" is the default. Claude Code's bypassPermissions is
// refused: shiro's --yolo is the nearest thing, and it still passes no
// guard, hook or deny rule.
func ParseMode(s string) (Mode, error) {
	switch strings.TrimSpace(s) {
	case "", "default":
		return ModeDefault, nil
	case "accept-edits", "acceptEdits":
		return ModeAcceptEdits, nil
	case "plan":
		return ModePlan, nil
	case "bypassPermissions", "bypass-permissions":
		return ModeDefault, fmt.Errorf("permission mode %q is not offered: use --yolo to approve what would ask (it never passes the guard, a hook or a deny rule)", s)
	}
	return ModeDefault, fmt.Errorf("unknown permission mode %q; the modes are default, accept-edits and plan", s)
}

// Next is the mode shift-tab moves to.
func (m Mode) Next() Mode { return (m + 1) % Mode(len(Modes())) }

// Stricter reports whether m allows less than o: plan is the strictest,
// accept-edits the loosest.
func (m Mode) Stricter(o Mode) bool { return m.rank() < o.rank() }

func (m Mode) rank() int {
	switch m {
	case ModePlan:
		return 0
	case ModeAcceptEdits:
		return 2
	}
	return 1
}

func (m Mode) String() string {
	switch m {
	case ModeAcceptEdits:
		return "accept-edits"
	case ModePlan:
		return "plan"
	}
	return "default"
}
