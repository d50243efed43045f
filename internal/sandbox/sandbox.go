package sandbox

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/supervise"
)

// Sandbox confines the commands shiro runs for the model. It is the
// proc.Launcher to set on workspace.Env (bash, background jobs,
// run_checks, git tools) and on hooks.Options, and a proc.Explainer, so a
// command that fails because of it says so.
type Sandbox struct {
	// policy is as configured, its paths resolved; resolved adds the
	// toolchains' caches, found once (caches.go).
	policy    Policy
	resolveFn func() Policy
	// cacheNotes say what the search for caches left out; written by
	// resolved, read after it.
	cacheNotes []string
	// netMu guards networked, the same sandbox with the network on, made
	// the first time it is asked for and closed with this one
	// (Networked); closed says Close ran.
	netMu     sync.Mutex
	networked *Sandbox
	closed    bool
	// life ends with Close: what the sandbox runs itself stops then.
	life  context.Context
	stop  context.CancelFunc
	notes []string
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
	// pool keeps the session's helpers, each running one command at a
	// time (Linux).
	pool *supervise.Pool
	// limits are what each command's supervisor holds it to, and
	// cgroupsWhy why they use no cgroups (Linux; resources.go).
	limits     supervise.Limits
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
	s := &Sandbox{policy: np, notes: notes, pool: supervise.NewPool(), guard: newGitGuard(np),
		tmp: &privateTemp{parent: np.Temp}}
	s.available, s.unavailable = Available()
	s.detect()
	s.probe = sync.OnceValue(s.runProbe)
	s.resolveFn = sync.OnceValue(s.resolve)
	s.life, s.stop = context.WithCancel(context.Background())
	// A sandbox dropped without Close still lets its kept helpers go.
	runtime.AddCleanup(s, (*supervise.Pool).Close, s.pool)
	return s, nil
}

// Close makes the helpers kept for the session exit (one running a
// command, once it ends) and removes
// the session's private temp folder; commands still running lose it, and
// a command launched afterwards starts a helper of its own (without a
// private temp folder).
func (s *Sandbox) Close() {
	if s.stop != nil {
		s.stop()
	}
	s.netMu.Lock()
	s.closed = true
	if s.networked != nil {
		s.networked.Close()
	}
	s.netMu.Unlock()
	s.pool.Close()
	s.tmp.remove()
	supervise.RemoveCommandCgroups(s.limits, os.Getpid())
}

// Ready returns at once (supervise.Pool.Ready): the helper kept for the
// session is back in its pool before its command's end is reported.
func (s *Sandbox) Ready() { s.pool.Ready() }

// Policy is the sandbox's policy, with its paths resolved and the
// toolchains' caches found (which may wait for `go env`).
func (s *Sandbox) Policy() Policy { return s.resolved() }

// resolved is the policy with the toolchains' caches, found the first
// time it is asked for (Start asks in the background).
func (s *Sandbox) resolved() Policy {
	if s.resolveFn == nil {
		return s.policy // a Sandbox made without New (tests)
	}
	return s.resolveFn()
}

// resolve is the policy with the toolchains' caches (caches.go): in
// workspace-write, when the policy has the commands' environment to look
// in. `go env` runs confined, read-only, since the go on the commands'
// PATH may be the workspace's.
func (s *Sandbox) resolve() Policy {
	p := s.policy
	if p.CacheEnv == nil || p.Mode != WorkspaceWrite {
		return p
	}
	env := envMap(p.CacheEnv)
	search := cacheSearch{env: env, home: p.Home}
	if goPath, ok := lookPath("go", env); ok {
		search.goEnv = func(ctx context.Context, names ...string) (map[string]string, error) {
			// From /: outside any module, whose go.mod could make go
			// switch toolchains (a download) or read a go.work.
			return runGoEnv(ctx, s.readOnly(), goPath, "/", p.CacheEnv, names...)
		}
	}
	f := search.find(s.life)
	p.Caches, p.ToolSecrets = f.caches, f.secrets
	s.cacheNotes = f.notes
	return p
}

// Networked is this sandbox with the network on, for the person's own
// MCP servers (issue 28 §3): a server started with `npx -y` downloads
// itself, and one that talks to a web API needs the network to work at
// all. Everything else is as for commands: the same files readable and
// writable, the same protections, limits and supervision. It is made the
// first time it is asked for (its helper starts with its first server)
// and closed with this sandbox.
func (s *Sandbox) Networked() *Sandbox {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.networked == nil {
		s.networked = s.withNetwork()
		if s.closed {
			s.networked.Close() // its commands start helpers of their own
		}
	}
	return s.networked
}

// withNetwork makes the networked sibling: the configured policy with
// the network on, and the toolchains' caches this sandbox finds.
func (s *Sandbox) withNetwork() *Sandbox {
	p := s.policy
	p.Network = true
	n := &Sandbox{policy: p, notes: s.notes, pool: supervise.NewPool(), guard: newGitGuard(p),
		tmp: &privateTemp{parent: p.Temp}}
	n.available, n.unavailable = s.available, s.unavailable
	n.detect()
	n.probe = sync.OnceValue(n.runProbe)
	n.resolveFn = sync.OnceValue(func() Policy {
		full := s.resolved()
		full.Network = true
		return full
	})
	n.life, n.stop = s.life, func() {}
	runtime.AddCleanup(n, (*supervise.Pool).Close, n.pool)
	return n
}

// launcherFunc is a proc.Launcher made of a function.
type launcherFunc func(proc.Exec) (proc.Exec, error)

func (f launcherFunc) Launch(x proc.Exec) (proc.Exec, error) { return f(x) }

// Confines reports whether commands are confined on this machine: the
// mode is not off and the OS has a sandbox shiro can use (Landlock on
// Linux, sandbox-exec on macOS).
func (s *Sandbox) Confines() bool { return s.policy.Mode != Off && s.available }

// Start finds out, in the background, what this machine enforces (on
// Linux it starts the helper once, which takes milliseconds), and where
// the toolchains keep their caches (`go env`, tens of milliseconds), so
// that Notice, Status and the first command find the answers ready.
func (s *Sandbox) Start() {
	go func() {
		s.probe()
		s.resolved()
	}()
}

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
