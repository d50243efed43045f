package proc

import (
	"bytes"
	"os"
	"strconv"
)

// EachProcess calls fn for every pid under /proc.
func EachProcess(fn func(pid int)) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			fn(pid)
		}
	}
	return nil
}

// liveGroupMembers lists the processes of group pgid that have not exited.
func liveGroupMembers(pgid int) ([]int, error) {
	var members []int
	err := EachProcess(func(pid int) {
		st, err := readProcStat(pid)
		if err == nil && st.PGRP == pgid && !st.dead() {
			members = append(members, pid)
		}
	})
	return members, err
}

// processesCarrying finds live processes whose environment holds one of
// the tokens (as SHIRO_JOB_TOKEN=<token>), mapping pid to token. Processes
// of other users cannot be read and are skipped, as they cannot be ours.
func processesCarrying(tokens []string) map[int]string {
	want := make(map[string]string, len(tokens))
	for _, t := range tokens {
		if t != "" {
			want[JobTokenVar+"="+t] = t
		}
	}
	found := map[int]string{}
	if len(want) == 0 {
		return found
	}
	self := os.Getpid()
	_ = EachProcess(func(pid int) {
		if pid == self {
			return
		}
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			return
		}
		for kv := range bytes.SplitSeq(data, []byte{0}) {
			if tok, ok := want[string(kv)]; ok {
				if st, err := readProcStat(pid); err == nil && !st.dead() {
					found[pid] = tok
				}
				return
			}
		}
	})
	return found
}
