package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procStat is what shiro reads from /proc/<pid>/stat.
type procStat struct {
	State      byte
	PPID       int
	PGRP       int
	StartTicks uint64 // clock ticks after boot; never changes, survives exec
}

// parseProcStat reads /proc/<pid>/stat. The command name (field 2) is in
// parentheses and may itself contain spaces and parentheses, so fields are
// counted from the last ')'.
func parseProcStat(data []byte) (procStat, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procStat{}, errors.New("proc stat: no ')' after the command name")
	}
	// Fields after the name, numbered from 3 as in proc(5): state (3),
	// ppid (4), pgrp (5), ..., starttime (22).
	fields := strings.Fields(string(data[end+1:]))
	const stateField, ppidField, pgrpField, startField = 3, 4, 5, 22
	if len(fields) < startField-2 {
		return procStat{}, fmt.Errorf("proc stat: %d fields after the name, want at least %d", len(fields), startField-2)
	}
	state := fields[stateField-3]
	if len(state) != 1 {
		return procStat{}, fmt.Errorf("proc stat: bad state %q", state)
	}
	ppid, err := strconv.Atoi(fields[ppidField-3])
	if err != nil {
		return procStat{}, fmt.Errorf("proc stat: bad ppid: %w", err)
	}
	pgrp, err := strconv.Atoi(fields[pgrpField-3])
	if err != nil {
		return procStat{}, fmt.Errorf("proc stat: bad pgrp: %w", err)
	}
	start, err := strconv.ParseUint(fields[startField-3], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("proc stat: bad starttime: %w", err)
	}
	return procStat{State: state[0], PPID: ppid, PGRP: pgrp, StartTicks: start}, nil
}

func readProcStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(data)
}

func (s procStat) dead() bool { return s.State == 'Z' || s.State == 'X' || s.State == 'x' }

// bootID identifies the current boot: start ticks count from boot, so an
// identity is only comparable within one.
func bootID() (string, error) {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// IdentityOf names the running process pid so that a later check cannot
// mistake another process that got the same pid for it. A process that
// has exited has no identity.
func IdentityOf(pid int) (Identity, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return Identity{PID: pid}, fmt.Errorf("identity of process %d: %w", pid, err)
	}
	if st.dead() {
		return Identity{PID: pid}, fmt.Errorf("identity of process %d: it has exited", pid)
	}
	boot, err := bootID()
	if err != nil {
		return Identity{PID: pid}, fmt.Errorf("identity of process %d: %w", pid, err)
	}
	return Identity{PID: pid, StartTicks: st.StartTicks, BootID: boot}, nil
}

// Running reports whether id still names a running process, the one it
// was taken from. An identity without a start time can never be verified.
func (id Identity) Running() bool {
	if id.StartTicks == 0 || id.BootID == "" {
		return false
	}
	now, err := IdentityOf(id.PID)
	return err == nil && now == id
}

// leaderIsOurs verifies that a journal entry's group leader is the very
// process shiro started: same boot, same start time, and still leading the
// recorded group.
func leaderIsOurs(e JournalEntry) bool {
	leader := Identity{PID: e.PID, StartTicks: e.StartTicks, BootID: e.BootID}
	if e.PGID != e.PID || !leader.Running() {
		return false
	}
	st, err := readProcStat(e.PID)
	return err == nil && st.PGRP == e.PGID
}

// ownerAlive reports whether the shiro process that wrote an entry is
// still running. Without a verifiable identity, any process with that pid
// counts, which errs towards leaving jobs alone.
func ownerAlive(owner Identity) bool {
	if owner.StartTicks == 0 {
		return processExists(owner.PID)
	}
	return owner.Running()
}
