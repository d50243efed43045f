package supervise

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Per-command cgroups, cgroup v1. The supervisor makes one cgroup per
// controller for its command, under shiro's own cgroup of that hierarchy,
// and moves only the thread that forks the command into it for the fork
// (v1 places threads one by one: "tasks"), then back: the command and all
// it starts are inside, the supervisor is not, so a command that fills its
// cgroup cannot keep the supervisor from stopping it.

// CgroupsFor finds the folders a supervisor may make per-command pids and
// memory cgroups under: this process's own cgroup in each cgroup v1
// hierarchy, when this process may create cgroups there (root; a
// delegated tree). An empty path comes with the reason it is unusable.
func CgroupsFor() (pids, memory string, why error) {
	pids, pidsErr := ownCgroupDir("pids", true)
	memory, memErr := ownCgroupDir("memory", true)
	return pids, memory, errors.Join(pidsErr, memErr)
}

// ownCgroupDir is the folder of this process's cgroup in the cgroup v1
// hierarchy of controller; writable says it must be one this process may
// make cgroups in.
func ownCgroupDir(controller string, writable bool) (string, error) {
	rel, err := ownCgroupPath(controller)
	if err != nil {
		return "", err
	}
	mount, root, err := cgroupMount(controller)
	if err != nil {
		return "", err
	}
	// A cgroup namespace or a bind mount of a subtree shows the
	// hierarchy from root, not from its top.
	if root != "/" {
		rest, ok := strings.CutPrefix(rel, root)
		if !ok {
			return "", fmt.Errorf("the %s cgroup %s is outside the mounted part of the hierarchy (%s)", controller, rel, root)
		}
		rel = rest
	}
	dir := filepath.Join(mount, rel)
	if writable {
		if err := unix.Access(dir, unix.W_OK); err != nil {
			return "", fmt.Errorf("cannot make %s cgroups in %s: %w", controller, dir, err)
		}
	}
	return dir, nil
}

// ownCgroupPath reads this process's cgroup in controller's v1 hierarchy
// from /proc/self/cgroup.
func ownCgroupPath(controller string) (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		fields := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(fields) == 3 && fields[1] != "" {
			for c := range strings.SplitSeq(fields[1], ",") {
				if c == controller {
					return fields[2], nil
				}
			}
		}
	}
	return "", fmt.Errorf("no cgroup v1 %s controller here (cgroup v2 is not used by this version)", controller)
}

// cgroupMount finds where controller's v1 hierarchy is mounted, and which
// of its cgroups the mount shows at its top.
func cgroupMount(controller string) (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent dev root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(tail) < 3 || tail[0] != "cgroup" {
			continue
		}
		for opt := range strings.SplitSeq(tail[2], ",") {
			if opt == controller {
				return unescapeMount(fields[4]), unescapeMount(fields[3]), nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	return "", "", fmt.Errorf("the cgroup v1 %s hierarchy is not mounted", controller)
}

// unescapeMount undoes mountinfo's octal escapes (a space is \040).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// pidsRoom is how many more tasks the pids cgroups from dir up to its
// hierarchy's top let in, at the tightest; ok is false when none of them
// sets a limit.
func pidsRoom(dir string) (room int, ok bool) {
	for d := dir; ; d = filepath.Dir(d) {
		maxRaw, err := os.ReadFile(filepath.Join(d, "pids.max"))
		if err != nil {
			return room, ok // past the top of the hierarchy
		}
		limit, err := strconv.Atoi(strings.TrimSpace(string(maxRaw)))
		if err == nil { // "max" is no limit
			cur, err := readInt(filepath.Join(d, "pids.current"))
			if err == nil && (!ok || limit-int(cur) < room) {
				room, ok = limit-int(cur), true
			}
		}
		if d == filepath.Dir(d) {
			return room, ok
		}
	}
}

func readInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// commandCgroups are the cgroups a supervisor made for its command.
type commandCgroups struct {
	dirs  []string   // made, to remove at the end
	enter []*os.File // their tasks files
	leave []*os.File // their parents' tasks files
	pids  string     // the pids cgroup, for its events
	mem   string     // the memory cgroup, for its events
	tasks int        // pids.max
	bytes int64      // memory.limit_in_bytes
}

// makeCommandCgroups makes the command's cgroups named name, with their
// limits. It opens the tasks files now, while the supervisor may still
// open them: the thread that forks is confined (Landlock, no
// capabilities) by the time it writes to them.
func makeCommandCgroups(l Limits, name string) (cg *commandCgroups, err error) {
	cg = &commandCgroups{}
	defer func() {
		if err != nil {
			cg.remove()
			cg = nil
		}
	}()
	if l.PidsCgroup != "" && l.Tasks > 0 {
		cg.tasks = l.Tasks
		if room, ok := pidsRoom(l.PidsCgroup); ok {
			cg.tasks = max(1, min(cg.tasks, room-taskReserve))
		}
		cg.pids, err = cg.make(l.PidsCgroup, name, "pids.max", strconv.Itoa(cg.tasks))
		if err != nil {
			return cg, err
		}
	}
	if l.MemoryCgroup != "" && l.MemoryBytes > 0 {
		cg.bytes = l.MemoryBytes
		cg.mem, err = cg.make(l.MemoryCgroup, name, "memory.limit_in_bytes", strconv.FormatInt(l.MemoryBytes, 10))
		if err != nil {
			return cg, err
		}
		// Memory and swap together, where the kernel accounts swap: a
		// command out of memory would otherwise go on in swap.
		sw := filepath.Join(cg.mem, "memory.memsw.limit_in_bytes")
		if err := os.WriteFile(sw, []byte(strconv.FormatInt(l.MemoryBytes, 10)), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			return cg, fmt.Errorf("limit the command's swap: %w", err)
		}
	}
	return cg, nil
}

// make makes the cgroup name under parent, writes value to its file
// setting, and opens the tasks files.
func (cg *commandCgroups) make(parent, name, setting, value string) (string, error) {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("make the command's cgroup: %w", err)
	}
	cg.dirs = append(cg.dirs, dir)
	if err := os.WriteFile(filepath.Join(dir, setting), []byte(value), 0); err != nil {
		return "", fmt.Errorf("set %s of the command's cgroup: %w", setting, err)
	}
	enter, err := os.OpenFile(filepath.Join(dir, "tasks"), os.O_WRONLY, 0)
	if err != nil {
		return "", fmt.Errorf("open the command's cgroup: %w", err)
	}
	cg.enter = append(cg.enter, enter)
	leave, err := os.OpenFile(filepath.Join(parent, "tasks"), os.O_WRONLY, 0)
	if err != nil {
		return "", fmt.Errorf("open shiro's cgroup: %w", err)
	}
	cg.leave = append(cg.leave, leave)
	return dir, nil
}

// move puts thread tid into the cgroups of files.
func move(files []*os.File, tid int) error {
	for _, f := range files {
		if _, err := f.Write([]byte(strconv.Itoa(tid))); err != nil {
			return fmt.Errorf("move the forking thread to %s: %w", filepath.Dir(f.Name()), err)
		}
	}
	return nil
}

// report tells what the kernel refused the command because of its
// cgroups.
func (cg *commandCgroups) report(notice func(format string, args ...any)) {
	if cg.pids != "" {
		if n := eventCount(filepath.Join(cg.pids, "pids.events"), "max"); n > 0 {
			notice("shiro: the command reached its limit of %d processes and threads (sandbox.maxProcesses); %d %s refused", cg.tasks, n, plural(int(n), "fork was", "forks were"))
		}
	}
	if cg.mem != "" {
		if n := eventCount(filepath.Join(cg.mem, "memory.oom_control"), "oom_kill"); n > 0 {
			notice("shiro: the command ran out of its %d MiB of memory (sandbox.maxMemoryMB); the kernel killed %d %s", cg.bytes>>20, n, plural(int(n), "process", "processes"))
		}
	}
}

// eventCount reads the number after key in a cgroup's "key value" file.
func eventCount(path, key string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if k, v, ok := strings.Cut(strings.TrimSpace(string(line)), " "); ok && k == key {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// remove closes the tasks files and removes the cgroups, which the
// kernel allows once no task is left in them. What cannot be removed now
// (a task not yet gone) is left for RemoveCommandCgroups.
func (cg *commandCgroups) remove() {
	if cg == nil {
		return
	}
	for _, f := range append(cg.enter, cg.leave...) {
		_ = f.Close()
	}
	for _, d := range cg.dirs {
		_ = unix.Rmdir(d)
	}
}

// RemoveCommandCgroups removes the cgroups that supervisors of the shiro
// with pid shiro made under the folders of l and could not remove
// themselves (one was killed, say). A cgroup whose supervisor still runs
// stays: it may be about to fork its command, and an empty cgroup cannot
// be told from one that is waiting for it.
func RemoveCommandCgroups(l Limits, shiro int) {
	prefix := cgroupPrefix(shiro)
	for _, parent := range []string{l.PidsCgroup, l.MemoryCgroup} {
		if parent == "" {
			continue
		}
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), prefix)
			if !e.IsDir() || !ok {
				continue
			}
			if pid, err := strconv.Atoi(rest); err == nil && unix.Kill(pid, 0) == nil {
				continue // its supervisor runs
			}
			_ = unix.Rmdir(filepath.Join(parent, e.Name()))
		}
	}
}

// cgroupPrefix starts the name of every command cgroup of shiro pid.
func cgroupPrefix(shiro int) string { return "shiro-" + strconv.Itoa(shiro) + "-" }
