//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// These systems have no /proc: group members are listed with ps(1), and
// stale journal entries cannot be verified, so Reap never kills on them.

var errNoIdentity = errors.New("process identity needs /proc (Linux)")

// IdentityOf cannot name a process here beyond its pid.
func IdentityOf(pid int) (Identity, error) { return Identity{PID: pid}, errNoIdentity }

// Running cannot verify an identity here, so it never does.
func (Identity) Running() bool { return false }

func leaderIsOurs(JournalEntry) bool { return false }

func ownerAlive(owner Identity) bool { return processExists(owner.PID) }

func processesCarrying([]string) map[int]string { return map[int]string{} }

// liveGroupMembers lists the processes of group pgid that have not exited.
func liveGroupMembers(pgid int) ([]int, error) {
	out, err := exec.Command("ps", "-A", "-o", "pid=,pgid=,stat=").Output()
	if err != nil {
		return nil, err
	}
	var members []int
	for line := range bytes.Lines(out) {
		f := strings.Fields(string(line))
		if len(f) < 3 || strings.HasPrefix(f[2], "Z") {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		group, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && group == pgid {
			members = append(members, pid)
		}
	}
	return members, nil
}
