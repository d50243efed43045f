package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// What the approval flow needs of the sandbox (issue 28): whether it
// holds every protection, so that a command it contains may run without
// asking (Holds, Writable), what it refused a command that failed, as
// data (Refused), and a wider copy of itself that allows it (Widened).

// Holds reports whether commands are confined with every protection of
// the policy enforced on this machine and the network cut off; why says
// what is missing. It waits for the probe, like Notice.
func (s *Sandbox) Holds() (bool, string) {
	switch {
	case s.policy.Mode == Off:
		return false, "the sandbox is off"
	case s.policy.Network:
		return false, "sandbox.network is true, so the sandbox does not keep commands off the network"
	}
	if !s.available {
		return false, s.unavailable
	}
	// Not Notice: an unlimited process count (root without a pids
	// cgroup) bounds no resource, but keeps nothing less inside.
	if why := s.partial(); why != "" {
		return false, why
	}
	return true, ""
}

// Writable reports whether commands may write path (absolute, resolved).
func (s *Sandbox) Writable(path string) bool { return s.policy.writable(path) }

// Workspace is the workspace root, resolved.
func (s *Sandbox) Workspace() string { return s.policy.Workspace }

// Home is the home directory, resolved; "" when unknown.
func (s *Sandbox) Home() string { return s.policy.Home }

// Refused implements proc.Refuser. It reads the output as Explain does
// and answers only for what a wider sandbox would let through: a path
// outside the writable folders that is neither secret nor kept read-only,
// and that shiro's own user may write (checked with access(2) on it or
// the nearest folder that exists, outside the sandbox), so that an
// ordinary "permission denied" (a root-owned file) is not blamed on the
// sandbox; or the network, while it is off.
func (s *Sandbox) Refused(exit proc.Exit, output []byte) *proc.Refusal {
	p := s.policy
	if !s.Confines() || exit.Success() || len(output) == 0 {
		return nil
	}
	netOff := !p.Network
	lines := strings.Split(string(output), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		kind := denial(line)
		if kind == "" {
			continue
		}
		if kind == denied && mentionsUnixSocket(line) {
			return nil // sandbox.unixSockets names sockets one by one; not offered
		}
		path := lastPathIn(line)
		if netOff && kind == denied && (mentionsSocket(line) || isNetworkPath(path)) {
			return &proc.Refusal{Network: true}
		}
		if path == "" {
			continue
		}
		abs := s.absolute(path)
		if s.widenable(abs) {
			folder := s.suggestFolder(abs)
			return &proc.Refusal{Path: folder, Denied: abs, Shown: s.display(folder)}
		}
	}
	if netOff && mentionsNetworkFailure(strings.ToLower(string(output))) {
		return &proc.Refusal{Network: true}
	}
	return nil
}

// widenable reports whether adding a folder of path to the writable ones
// would let a command write it.
func (s *Sandbox) widenable(path string) bool {
	p := s.policy
	if p.Mode != WorkspaceWrite || p.writable(path) || p.isSecret(path) || s.protectedPath(path) {
		return false
	}
	return userMayWrite(path)
}

// userMayWrite asks the kernel whether this process, unconfined, may
// write path or, when it does not exist, create it in the nearest folder
// that does.
func userMayWrite(path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			return unix.Access(p, unix.W_OK) == nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// Display shows a path as messages do: under the home directory as ~/….
func (s *Sandbox) Display(path string) string { return s.display(path) }

// Widened returns a sandbox like s that also allows what r names: writing
// beneath r.Path (created first, as the command would have, when it does
// not exist yet) or the network. The copy shares s's helper pool, rulesets
// and temp folder, so it costs nothing to make; close only s.
func (s *Sandbox) Widened(r proc.Refusal) (*Sandbox, error) {
	np := s.policy
	np.Writable = append([]string(nil), np.Writable...)
	switch {
	case r.Network:
		np.Network = true
	case r.Path != "":
		if !filepath.IsAbs(r.Path) {
			return nil, fmt.Errorf("sandbox: allow %q: the path must be absolute", r.Path)
		}
		if err := os.MkdirAll(r.Path, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: allow %s: %w", s.display(r.Path), err)
		}
		np.Writable = append(np.Writable, r.Path)
	default:
		return nil, errors.New("sandbox: nothing to allow")
	}
	norm, _, err := np.normalize()
	if err != nil {
		return nil, err
	}
	// The same grant on top of the caches s found (or will find).
	resolve := func() Policy {
		full := s.resolved()
		full.Network = norm.Network
		if r.Path != "" {
			full.Writable = append(slices.Clone(full.Writable), norm.Writable[len(norm.Writable)-1])
		}
		return full
	}
	return &Sandbox{policy: norm, resolveFn: sync.OnceValue(resolve), life: s.life, stop: func() {},
		notes: s.notes, available: s.available, unavailable: s.unavailable, abi: s.abi, seccomp: s.seccomp,
		rulesets: s.rulesets, pool: s.pool, limits: s.limits, cgroupsWhy: s.cgroupsWhy, probe: s.probe,
		guard: s.guard, tmp: s.tmp, helpers: s.helpers}, nil
}

// Switch is the launcher a session hands every command: its sandbox,
// which a grant for the rest of the session replaces by a wider one
// (Set) while commands run.
type Switch struct{ cur atomic.Pointer[Sandbox] }

var _ proc.Refuser = (*Switch)(nil)

// NewSwitch starts with s.
func NewSwitch(s *Sandbox) *Switch {
	w := &Switch{}
	w.cur.Store(s)
	return w
}

// Current is the sandbox commands launch in now.
func (w *Switch) Current() *Sandbox { return w.cur.Load() }

// Set replaces the sandbox for the commands launched from now on.
func (w *Switch) Set(s *Sandbox) { w.cur.Store(s) }

// Launch implements proc.Launcher.
func (w *Switch) Launch(x proc.Exec) (proc.Exec, error) { return w.Current().Launch(x) }

// Explain implements proc.Explainer.
func (w *Switch) Explain(exit proc.Exit, output []byte) string {
	return w.Current().Explain(exit, output)
}

// Refused implements proc.Refuser.
func (w *Switch) Refused(exit proc.Exit, output []byte) *proc.Refusal {
	return w.Current().Refused(exit, output)
}

// Holds answers for the current sandbox, as Writable, Workspace and Home
// do, so a Switch is what the gate's containment check asks.
func (w *Switch) Holds() (bool, string)     { return w.Current().Holds() }
func (w *Switch) Writable(path string) bool { return w.Current().Writable(path) }
func (w *Switch) Workspace() string         { return w.Current().Workspace() }
func (w *Switch) Home() string              { return w.Current().Home() }

// Once returns a context under which the commands of one call launch in
// a sandbox that also allows writing beneath path, or the network
// (proc.WithLauncher); the session's sandbox stays as it is.
func (w *Switch) Once(ctx context.Context, path string, network bool) (context.Context, error) {
	wide, err := w.Current().Widened(proc.Refusal{Path: path, Network: network})
	if err != nil {
		return ctx, err
	}
	return proc.WithLauncher(ctx, w, wide), nil
}

// Widen makes every command launched from now on also allowed to write
// beneath path, or to reach the network.
func (w *Switch) Widen(path string, network bool) error {
	for {
		cur := w.Current()
		wide, err := cur.Widened(proc.Refusal{Path: path, Network: network})
		if err != nil {
			return err
		}
		if w.cur.CompareAndSwap(cur, wide) {
			return nil
		}
	}
}
