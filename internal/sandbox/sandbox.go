package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Sandbox confines the commands shiro runs for the model. It is the
// proc.Launcher to set on workspace.Env (bash, background jobs,
// run_checks, git tools) and on hooks.Options, and a proc.Explainer, so a
// command that fails because of it says so.
type Sandbox struct {
	policy Policy
	notes  []string
	// available: this machine has an OS sandbox shiro can use;
	// unavailable says why not.
	available   bool
	unavailable string
	// abi is the kernel's Landlock ABI (Linux); 0 without Landlock.
	abi int
	// seccomp says the kernel takes seccomp filters (Linux).
	seccomp bool
	// rulesets keeps the last Landlock ruleset for the next command
	// (Linux).
	rulesets *rulesetCache
	// pool keeps a helper started ahead of the next command (Linux).
	pool *proc.Pool
	// limits are what each command's supervisor holds it to, and
	// cgroupsWhy why they use no cgroups (Linux; resources.go).
	limits     proc.Limits
	cgroupsWhy error
	// probe starts the helper once, the first time it is needed, to learn
	// whether this program runs it and whether private mounts work here.
	probe func() probeResult
	// guard moves away the git redirects commands create.
	guard *gitGuard
	// tmp is the session's private temp folder (Linux).
	tmp *privateTemp
	// helpers, when set, replace helperCandidates (tests).
	helpers []string
}

var (
	_ proc.Launcher  = (*Sandbox)(nil)
	_ proc.Explainer = (*Sandbox)(nil)
)

// probeResult is what the probe learnt.
type probeResult struct {
	// helper is the program that ran as the helper (Linux).
	helper string
	// err: the helper does not run; commands cannot be confined.
	err error
	// mounts: private mounts work, so paths inside writable folders can
	// be protected; mountsErr says why not.
	mounts    bool
	mountsErr error
}

// New builds the sandbox for p. Paths are resolved now; what the kernel
// offers is looked up now; the helper is first started with the first
// command.
func New(p Policy) (*Sandbox, error) {
	np, notes, err := p.normalize()
	if err != nil {
		return nil, err
	}
	s := &Sandbox{policy: np, notes: notes, pool: proc.NewPool(), guard: newGitGuard(np),
		tmp: &privateTemp{parent: np.Temp}}
	s.available, s.unavailable = Available()
	s.detect()
	s.probe = sync.OnceValue(s.runProbe)
	// A sandbox dropped without Close still lets its waiting helper go.
	runtime.AddCleanup(s, (*proc.Pool).Close, s.pool)
	return s, nil
}

// Close makes the helper waiting for the next command exit and removes
// the session's private temp folder; commands still running lose it, and
// a command launched afterwards starts a helper of its own (without a
// private temp folder).
func (s *Sandbox) Close() {
	s.pool.Close()
	s.tmp.remove()
	proc.RemoveCommandCgroups(s.limits, os.Getpid())
}

// Ready waits until the helper for the next command, when one is being
// started, is waiting: benchmarks measure the command that finds it.
func (s *Sandbox) Ready() { s.pool.Ready() }

// Policy is the sandbox's policy, with its paths resolved.
func (s *Sandbox) Policy() Policy { return s.policy }

// Confines reports whether commands are confined on this machine: the
// mode is not off and the OS has a sandbox shiro can use (Landlock on
// Linux, sandbox-exec on macOS).
func (s *Sandbox) Confines() bool { return s.policy.Mode != Off && s.available }

// Start finds out, in the background, what this machine enforces (on
// Linux it starts the helper once, which takes milliseconds), so that
// Notice, Status and the first command find the answer ready.
func (s *Sandbox) Start() { go s.probe() }

// Notice is the one line to show at start-up when the sandbox is on but
// this machine cannot confine commands, or cannot keep part of what it
// should; "" when all is well. It waits for what Start found out.
func (s *Sandbox) Notice() string {
	if s.policy.Mode == Off {
		return ""
	}
	if !s.available {
		return fmt.Sprintf("sandbox: %s, so commands run unconfined (sandbox.mode %s is not enforced); see `shiro sandbox`", s.unavailable, s.policy.Mode)
	}
	if why := s.partial(); why != "" {
		return "sandbox: " + why + "; see `shiro sandbox`"
	}
	if why := s.unlimitedProcesses(os.Getuid()); why != "" {
		return "sandbox: " + why + "; see `shiro sandbox`"
	}
	return ""
}

// Notes are what resolving the policy left out (writable paths that do
// not exist, say).
func (s *Sandbox) Notes() []string { return s.notes }
