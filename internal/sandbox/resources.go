package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/supervise"
)

// Resources bound what one command may take (sandbox.maxProcesses,
// sandbox.maxMemoryMB, sandbox.maxFileMB), whatever the mode: a fork
// bomb or a memory hog ends the command, not shiro. Zero takes the
// default; a negative value turns the limit off.
type Resources struct {
	// MaxProcesses is how many processes and threads a command may add.
	MaxProcesses int
	// MaxMemoryMB is how much memory a command and all it starts may use.
	MaxMemoryMB int
	// MaxFileMB is the largest file a command may write.
	MaxFileMB int
}

// Defaults: enough for a parallel build, not enough to starve the
// machine; memory defaults to half of it.
const (
	DefaultMaxProcesses = 1024
	DefaultMaxFileMB    = 8 << 10
)

// limits turns r into what supervisors apply here, with the cgroup
// folders this process may make per-command cgroups in (cgroups, and
// cgroupsWhy when there are none; see supervise.CgroupsFor).
func (r Resources) limits(pidsDir, memoryDir string) supervise.Limits {
	var l supervise.Limits
	if n := orDefault(r.MaxProcesses, DefaultMaxProcesses); n > 0 {
		l.Tasks = n
		l.PidsCgroup = pidsDir
	}
	if n := orDefault(r.MaxFileMB, DefaultMaxFileMB); n > 0 {
		l.FileBytes = int64(n) << 20
	}
	if n := orDefault(r.MaxMemoryMB, int(halfOfMemory()>>20)); n > 0 && memoryDir != "" {
		l.MemoryBytes = int64(n) << 20
		l.MemoryCgroup = memoryDir
	}
	return l
}

func orDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// halfOfMemory is half the machine's RAM (MemTotal); 0 when unknown,
// which leaves memory unlimited unless sandbox.maxMemoryMB says.
func halfOfMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10 / 2
		}
	}
	return 0
}

// unlimitedProcesses says why a command's processes are not limited
// although sandbox.maxProcesses asks for it: for root (uid), only a pids
// cgroup can, and none can be made here. A fork bomb would then fill
// whatever limit shiro shares with it.
func (s *Sandbox) unlimitedProcesses(uid int) string {
	if uid != 0 || s.limits.Tasks == 0 || s.limits.PidsCgroup != "" {
		return ""
	}
	return "a command's processes are not limited: the kernel ignores RLIMIT_NPROC for root and no pids cgroup can be made here"
}

// resourcesStatus says what bounds each command here, and what does not.
func (s *Sandbox) resourcesStatus() string {
	l, r := s.limits, s.policy.Resources
	var parts []string
	switch {
	case l.Tasks == 0:
		parts = append(parts, "processes: not limited (sandbox.maxProcesses is negative)")
	case l.PidsCgroup != "":
		parts = append(parts, fmt.Sprintf("processes: %d per command (a pids cgroup of its own)", l.Tasks))
	case os.Getuid() == 0:
		parts = append(parts, "processes: NOT limited: the kernel ignores RLIMIT_NPROC for root and no pids cgroup can be made here ("+errText(s.cgroupsWhy)+")")
	default:
		parts = append(parts, fmt.Sprintf("processes: %d per command, fewer under a shared pids limit (RLIMIT_NPROC over the user's tasks)", l.Tasks))
	}
	switch {
	case l.MemoryBytes > 0:
		parts = append(parts, fmt.Sprintf("memory: %d MiB per command (a memory cgroup of its own)", l.MemoryBytes>>20))
	case r.MaxMemoryMB < 0:
		parts = append(parts, "memory: not limited (sandbox.maxMemoryMB is negative)")
	default:
		parts = append(parts, "memory: NOT limited: no memory cgroup can be made here ("+errText(s.cgroupsWhy)+"), and an address-space rlimit breaks programs that reserve more than they use")
	}
	if l.FileBytes > 0 {
		parts = append(parts, fmt.Sprintf("file size: %d MiB (RLIMIT_FSIZE)", l.FileBytes>>20))
	} else {
		parts = append(parts, "file size: not limited (sandbox.maxFileMB is negative)")
	}
	return strings.Join(parts, "; ")
}

func errText(err error) string {
	if err == nil {
		return "unknown reason"
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
