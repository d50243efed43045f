package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/supervise"
)

// The helper is shiro itself, re-executed by the launcher with the plan in
// planVar and helperArg as its first argument. MaybeRunHelper, called
// first thing in main (and in TestMain of every test binary that runs
// commands through a sandbox), recognises it, applies the plan and runs
// supervise.Supervise, which waits for the command to arrive by handoff
// (supervise.Launch); it never returns then. The plan holds nothing
// about the command, so a helper can be started, mounted and confined
// before its command exists: a supervise.Pool keeps one waiting.

const (
	// planVar holds the plan, JSON, in the helper's environment; the
	// command does not get it.
	planVar = "SHIRO_SANDBOX_PLAN"
	// helperArg is the helper's first argument. It is also a test binary's
	// flag that runs no test, and a flag shiro's CLI refuses, so a program
	// that forgot to call MaybeRunHelper fails at once instead of running
	// as something else.
	helperArg = "-test.run=^$"
	// planVersion changes whenever the plan's meaning does: a helper only
	// applies a plan it understands.
	planVersion = 4
	// probeOK is what a probing helper prints when everything worked.
	probeOK = "shiro-sandbox-helper ok"
)

// plan is what the helper applies before its command comes; the launcher
// computes it (the helper only applies it, to start quickly).
type plan struct {
	Version int `json:"v"`
	Parent  int `json:"parent"`
	// Probe applies everything, runs nothing and prints probeOK.
	Probe bool `json:"probe,omitempty"`
	// Landlock says that each command comes with the Landlock ruleset to
	// enforce (the probe: file descriptor 3), which the launcher built
	// (and reuses while the rules stay the same): the helper has nothing
	// to open or add, and a helper kept for the session confines each
	// command with the rules as they are when it comes.
	Landlock bool `json:"landlock,omitempty"`
	// Seccomp, when it refuses anything, refuses the sockets Landlock
	// cannot see.
	Seccomp seccompFilter `json:"seccomp,omitzero"`
	// Temp lays the session's temp folder over the shared one, first;
	// like Mounts, it needs a private mount namespace.
	Temp *tempMount `json:"temp,omitempty"`
	// Mounts protect paths inside writable folders; they need a private
	// mount namespace.
	Mounts []protection `json:"mounts,omitempty"`
	// DropCaps empties the command's capability sets, so that a shiro
	// running as root, or a helper holding the capability to mount in
	// its namespace (supervise.Launch.PrivateMounts), passes no privilege on:
	// the command can then neither unmount nor remount what protects.
	DropCaps bool `json:"dropCaps,omitempty"`
	// Limits bound the command, in every mode.
	Limits *supervise.Limits `json:"limits,omitempty"`
}

// MaybeRunHelper runs the sandbox helper and exits when this process was
// started as one; otherwise it returns at once. Call it first in main, and
// in TestMain of test binaries whose tests run commands through a Sandbox.
func MaybeRunHelper() {
	raw, ok := os.LookupEnv(planVar)
	if !ok || len(os.Args) < 2 || os.Args[1] != helperArg {
		return
	}
	supervise.ExitAs(runHelper(raw))
}

// runHelper applies the plan, then runs the command it is handed.
func runHelper(raw string) proc.Exit {
	fail := func(err error) proc.Exit {
		fmt.Fprintf(os.Stderr, "shiro sandbox: %v\n", err)
		return proc.Exit{Code: supervise.ExitCannotRun}
	}
	var p plan
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return fail(fmt.Errorf("unreadable plan: %w", err))
	}
	if p.Version != planVersion {
		return fail(fmt.Errorf("plan version %d, this helper applies %d (a different shiro started it)", p.Version, planVersion))
	}
	h := &helper{plan: p}
	if p.Probe {
		return h.probe()
	}
	return supervise.Supervise(supervise.Supervision{
		Handoff: supervise.HandoffFile(),
		Parent:  p.Parent,
		Prepare: h.prepare,
		Confine: h.confine,
		Check:   h.check,
		Notices: os.Stderr,
		Limits:  p.Limits,
	})
}

// helper applies one plan.
type helper struct {
	plan    plan
	mounted []mounted // what prepare mounted, for check
}

// rulesetFD is where the launcher passes the probe its Landlock ruleset;
// a command's comes with it (supervise.Launch.CommandFiles).
const rulesetFD = 3

// prepare makes the mounts, for the whole process.
func (h *helper) prepare() error {
	temp, err := applyTempMount(h.plan.Temp)
	if err != nil {
		return err
	}
	protected, err := applyProtections(h.plan.Mounts)
	h.mounted = append(temp, protected...)
	return err
}

// check tells whether the mounts still cover the protected paths when the
// command comes, which may be long after prepare: a path replaced since
// (an editor saving .env as a new file, .git/hooks renamed and made again)
// is no longer the one under the mount.
func (h *helper) check() error {
	for _, m := range h.mounted {
		if err := m.stillCovers(); err != nil {
			return err
		}
	}
	return nil
}

// confine restricts the calling OS thread, which then starts the command,
// and closes files: the Landlock ruleset to enforce, first, when the plan
// has one.
func (h *helper) confine(files []int) error {
	ruleset := -1
	if h.plan.Landlock {
		if len(files) == 0 {
			return errors.New("no Landlock ruleset came with the command")
		}
		ruleset = files[0]
	}
	defer func() {
		for _, fd := range files {
			_ = unix.Close(fd)
		}
	}()
	if h.plan.DropCaps {
		if err := dropCapabilities(); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if ruleset >= 0 {
		if err := restrictThread(ruleset); err != nil {
			return err
		}
	}
	if h.plan.Seccomp.needed() {
		if err := installNetworkFilter(h.plan.Seccomp); err != nil {
			return err
		}
	}
	return nil
}

// probe applies the plan on a thread of its own and reports.
func (h *helper) probe() proc.Exit {
	if err := h.prepare(); err != nil {
		fmt.Fprintf(os.Stderr, "shiro sandbox: %v\n", err)
		return proc.Exit{Code: supervise.ExitCannotRun}
	}
	var files []int
	if h.plan.Landlock {
		files = []int{rulesetFD}
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		done <- h.confine(files)
	}()
	if err := <-done; err != nil {
		fmt.Fprintf(os.Stderr, "shiro sandbox: %v\n", err)
		return proc.Exit{Code: supervise.ExitCannotRun}
	}
	fmt.Println(probeOK)
	return proc.Exit{Code: 0}
}

// dropCapabilities empties the calling thread's capability sets: the
// bounding set (so that exec grants none, even to root), the ambient and
// inheritable sets, and then the effective and permitted ones.
func dropCapabilities() error {
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability this kernel knows
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("clear the capabilities: %w", err)
	}
	return nil
}

// withoutVar is environ without the variable name.
func withoutVar(environ []string, name string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
