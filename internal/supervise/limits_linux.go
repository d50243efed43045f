package supervise

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// limiter holds a supervisor's command to its Limits.
type limiter struct {
	limits  Limits
	cgroups *commandCgroups
	// nproc is the command's RLIMIT_NPROC, 0 for none. It is worked out
	// when the supervisor is prepared, before its command comes: counting
	// the user's tasks reads /proc (about 1.5 ms), which would otherwise
	// delay every command. Tasks started meanwhile come out of the
	// command's budget, never out of shiro's room.
	nproc uint64
}

// newLimiter prepares l for the command of this supervisor: it makes the
// command's cgroups (named after shiro and the supervisor, so that shiro
// can find what a killed supervisor left). A nil *Limits, or one that
// limits nothing, gives a nil limiter, which forks as is.
func newLimiter(l *Limits) (*limiter, error) {
	if l == nil || *l == (Limits{}) {
		return nil, nil
	}
	name := cgroupPrefix(os.Getppid()) + strconv.Itoa(os.Getpid())
	cg, err := makeCommandCgroups(*l, name)
	if err != nil {
		return nil, err
	}
	lm := &limiter{limits: *l, cgroups: cg}
	if l.Tasks > 0 && !nprocIgnored() {
		counted, err := countedTasks()
		if err != nil {
			cg.remove()
			return nil, fmt.Errorf("count the tasks the process limit applies to: %w", err)
		}
		lm.nproc = uint64(counted + lm.taskBudget())
	}
	return lm, nil
}

// fork calls start, which forks and executes the command from the
// calling thread (locked to it), with the limits in force for the
// command alone.
//
// Rlimits belong to a whole process, and the command inherits the
// supervisor's: so the supervisor lowers its own soft limits for the
// fork, then raises them back, and lowers the command's hard limits too
// (prlimit), so that the command cannot raise its soft ones again. The
// supervisor keeps its own limits: it must still start threads when its
// command has used up all it may. For the instant between exec and
// prlimit the command could raise its soft process limit to the
// supervisor's hard one, a few tasks more (holdSelf); the file size limit
// has no such gap.
func (lm *limiter) fork(start func() (int, error)) (int, error) {
	if lm == nil {
		return start()
	}
	tid := unix.Gettid()
	if lm.cgroups != nil {
		if err := move(lm.cgroups.enter, tid); err != nil {
			return 0, err
		}
		defer func() { _ = move(lm.cgroups.leave, tid) }()
	}
	if err := lm.holdSelf(); err != nil {
		return 0, err
	}
	want := lm.rlimits()
	restore, err := lowerSoft(want)
	if err != nil {
		return 0, err
	}
	pid, err := start()
	restore()
	if err != nil {
		return pid, err
	}
	for _, r := range want {
		lim := unix.Rlimit{Cur: r.value, Max: r.value}
		err := unix.Prlimit(pid, r.resource, &lim, nil)
		// Gone already, or no longer ours to limit (a setuid program,
		// where no_new_privs does not forbid it): the soft limit holds.
		if err != nil && !errors.Is(err, unix.ESRCH) && !errors.Is(err, unix.EPERM) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return pid, fmt.Errorf("limit the command's %s: %w", r.name, err)
		}
	}
	return pid, nil
}

// rlimit is one resource limit to hold the command to.
type rlimit struct {
	resource int
	name     string
	value    uint64
}

// holdSelf sets, soft and hard, the limits the supervisor can live under
// itself: the file size (it writes nothing large). A supervisor runs one
// command and exits, so this costs it nothing, and the command inherits a
// hard limit from its first instruction: with prlimit after exec, a
// command quick enough (`ulimit -f unlimited` first thing) raised its soft
// limit back to the old hard one before prlimit came.
//
// The process limit it cannot take itself (it must start threads when its
// command has used up its budget), but it caps its own hard limit a few
// tasks above the command's, so the same quick command gains at most
// supervisorTasks, well within the room kept for shiro (taskReserve).
func (lm *limiter) holdSelf() error {
	if lm.limits.FileBytes > 0 {
		if err := capSelf(unix.RLIMIT_FSIZE, "file size", uint64(lm.limits.FileBytes)); err != nil {
			return err
		}
	}
	if lm.nproc > 0 {
		return capSelf(unix.RLIMIT_NPROC, "process count", lm.nproc+supervisorTasks)
	}
	return nil
}

// supervisorTasks is how many tasks above its command's budget a
// supervisor may start: its own threads.
const supervisorTasks = 16

// outgrown reports whether the process limit this command needs has
// grown well past the hard limit the supervisor took for its first
// command: the person's other processes (and the supervisor's own
// threads) grew since, and the command's budget would shrink by more
// than an eighth. A kept supervisor then hands the command to a fresh one
// (as it does when Check fails), which counts again and gives the whole
// budget. A smaller shrink is let through, so that the few threads a
// process starts and ends do not cost a new supervisor.
func (lm *limiter) outgrown() bool {
	if lm == nil || lm.nproc == 0 {
		return false
	}
	var own unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &own); err != nil {
		return false // fork reads it again and says why
	}
	return shrinksBudget(lm.nproc, own.Max, uint64(lm.taskBudget()))
}

// shrinksBudget says whether a command's process limit nproc, with the
// supervisor's own tasks above it, overshoots the hard limit by more than
// an eighth of the command's budget.
func shrinksBudget(nproc, hard, budget uint64) bool {
	if hard == unix.RLIM_INFINITY {
		return false
	}
	return nproc+supervisorTasks > hard+budget/8
}

// capSelf sets the process's soft and hard limit of resource to value, or
// to the hard limit it has when that is lower.
func capSelf(resource int, name string, value uint64) error {
	var old unix.Rlimit
	if err := unix.Getrlimit(resource, &old); err != nil {
		return fmt.Errorf("read the %s limit: %w", name, err)
	}
	v := min(value, old.Max)
	if err := unix.Setrlimit(resource, &unix.Rlimit{Cur: v, Max: v}); err != nil {
		return fmt.Errorf("set the %s limit: %w", name, err)
	}
	return nil
}

// rlimits are the rlimits to hold the command to for the fork only (the
// supervisor must stay free of them), then, by prlimit, for good.
func (lm *limiter) rlimits() []rlimit {
	var out []rlimit
	if lm.nproc > 0 {
		out = append(out, rlimit{unix.RLIMIT_NPROC, "process count", lm.nproc})
	}
	return out
}

// taskBudget is how many tasks the command may add under RLIMIT_NPROC:
// Tasks, or less when a pids cgroup shiro runs under (a user's TasksMax)
// has less room, so that the command runs out first.
func (lm *limiter) taskBudget() int {
	budget := lm.limits.Tasks
	if dir, err := ownCgroupDir("pids", false); err == nil {
		if room, ok := pidsRoom(dir); ok {
			budget = max(1, min(budget, room-taskReserve))
		}
	}
	return budget
}

// lowerSoft lowers the process's soft limits to want (never above the
// hard ones) and returns what puts them back.
func lowerSoft(want []rlimit) (restore func(), err error) {
	var undo []func()
	restore = func() {
		for _, u := range undo {
			u()
		}
	}
	for i, r := range want {
		var old unix.Rlimit
		if err := unix.Getrlimit(r.resource, &old); err != nil {
			restore()
			return nil, fmt.Errorf("read the %s limit: %w", r.name, err)
		}
		if r.value > old.Max {
			want[i].value = old.Max
		}
		lowered := unix.Rlimit{Cur: min(r.value, old.Max), Max: old.Max}
		if err := unix.Setrlimit(r.resource, &lowered); err != nil {
			restore()
			return nil, fmt.Errorf("set the %s limit: %w", r.name, err)
		}
		undo = append(undo, func() { _ = unix.Setrlimit(r.resource, &old) })
	}
	return restore, nil
}

// nprocIgnored reports whether the kernel ignores RLIMIT_NPROC for this
// process: it does for the real root user (and anyone with
// CAP_SYS_RESOURCE or CAP_SYS_ADMIN, which a supervisor keeps only as
// root). Root is uid 0 in a namespace that maps it to the host's root.
func nprocIgnored() bool {
	return os.Getuid() == 0 && identityMapped()
}

// identityMapped reports whether this process's user namespace maps
// every id to itself: the initial namespace, or one that looks like it.
func identityMapped() bool {
	data, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	return strings.Join(strings.Fields(string(data)), " ") == "0 0 4294967295"
}

// countedTasks is how many tasks the kernel counts against RLIMIT_NPROC
// for a process this one starts: all tasks (threads too) of the user in
// the initial user namespace; in another, those in that namespace (each
// level of nesting is counted, and checked against the limit its creator
// had). Processes are told apart by their owner, which is the effective
// uid where the kernel counts the real one; for the user's own processes
// the two are the same.
func countedTasks() (int, error) {
	uid := uint32(os.Getuid())
	ns := ""
	if !identityMapped() {
		var err error
		if ns, err = os.Readlink("/proc/self/ns/user"); err != nil {
			return 0, err
		}
	}
	total := 0
	err := proc.EachProcess(func(pid int) {
		dir := "/proc/" + strconv.Itoa(pid)
		info, err := os.Stat(dir)
		if err != nil {
			return
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != uid {
			return
		}
		if ns != "" {
			if other, err := os.Readlink(dir + "/ns/user"); err != nil || other != ns {
				return
			}
		}
		total += threadCount(dir)
	})
	return total, err
}

// threadCount reads the number of threads from dir/stat (field 20); a
// process that cannot be read counts as one.
func threadCount(dir string) int {
	data, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 1
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 1
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 18 {
		return 1
	}
	n, err := strconv.Atoi(fields[17])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// finish reports what the limits refused the command and removes its
// cgroups; the command and everything it started must be gone.
func (lm *limiter) finish(notice func(format string, args ...any)) {
	if lm == nil || lm.cgroups == nil {
		return
	}
	lm.cgroups.report(notice)
	lm.cgroups.remove()
}
