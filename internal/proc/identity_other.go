//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package proc

// IdentityOf cannot name a process here beyond its pid.
func IdentityOf(pid int) (Identity, error) { return Identity{PID: pid}, ErrUnsupported }

// Running cannot verify an identity here, so it never does.
func (Identity) Running() bool { return false }

func leaderIsOurs(JournalEntry) bool { return false }

// ownerAlive cannot tell here, so every owner counts as alive and Reap
// leaves every entry alone.
func ownerAlive(Identity) bool { return true }

func processesCarrying([]string) map[int]string { return map[int]string{} }
