package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/supervise"
)

// selfExe is how the launcher re-executes shiro: the kernel's link to the
// running program, which works even when the file has been replaced or
// deleted since shiro started (an upgrade, a rebuild).
const selfExe = "/proc/self/exe"

// probeTimeout bounds the probe; a helper that starts runs it in
// milliseconds.
const probeTimeout = 10 * time.Second

// Available reports whether this machine can confine commands, and why
// not: Linux needs Landlock.
func Available() (bool, string) {
	if landlockABI() == 0 {
		return false, "this Linux kernel has no Landlock (it needs 5.13 or later, booted with Landlock enabled)"
	}
	return true, ""
}

func (s *Sandbox) detect() {
	s.abi = landlockABI()
	s.seccomp = seccompAvailable()
	s.rulesets = &rulesetCache{}
	pids, memory, why := supervise.CgroupsFor()
	s.limits, s.cgroupsWhy = s.policy.Resources.limits(pids, memory), why
}

// partial says, as one clause, what the policy asks for that this
// machine does not enforce although Landlock works; "" when nothing is
// missing. It waits for the probe (started by Start, or now), which is
// what finds out whether private mounts work: the sysctls alone do not
// tell (issue 21: for every user but root they failed, and nothing said
// so).
func (s *Sandbox) partial() string {
	if s.policy.Mode == Off {
		return ""
	}
	pr := s.probe()
	if pr.err != nil {
		return oneLine("commands cannot run: " + pr.err.Error())
	}
	var gaps []string
	if !pr.mounts {
		lost := "commands share /tmp with everyone"
		if s.policy.Mode == WorkspaceWrite {
			lost = keptByMounts + " are NOT kept read-only, secrets inside the writable folders are NOT hidden and " + lost
		}
		gaps = append(gaps, lost+" ("+mountsFailed(pr)+")")
	}
	if !s.landlockFiltersUnix() && !s.seccomp {
		gaps = append(gaps, "Unix sockets are NOT refused (Landlock before ABI 9 and no seccomp filter)")
	}
	if !s.policy.Network {
		switch {
		case s.abi < 4 && !s.seccomp:
			gaps = append(gaps, fmt.Sprintf("the network is NOT cut off (Landlock ABI %d has no TCP rules and this machine takes no seccomp filter)", s.abi))
		case !s.seccomp && s.abi < 10:
			gaps = append(gaps, "UDP (DNS included) is NOT filtered (this machine takes no seccomp filter)")
		}
	}
	return oneLine(strings.Join(gaps, "; "))
}

// oneLine joins the lines of s (what failed may be the helper's stderr).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// keptByMounts names what the private mounts keep read-only.
const keptByMounts = ".git/hooks, .git/config, .git/info/ and the files that send git elsewhere (commondir, config.worktree, gitdir, a linked worktree's), .shiro/ and shiro's own folder"

// mountsFailed says why the probe could not make private mounts: a switch
// that turns user namespaces off, when one does, or what failed.
func mountsFailed(pr probeResult) string {
	if why := userNamespacesBlocked(); why != "" {
		return why
	}
	if pr.mountsErr != nil {
		return pr.mountsErr.Error()
	}
	return "private mounts are not available"
}

// userNamespacesBlocked says why user namespaces are off for shiro, as
// the usual switches tell; "" when nothing says so.
func userNamespacesBlocked() string {
	read := func(path string) string {
		data, _ := os.ReadFile(path)
		return strings.TrimSpace(string(data))
	}
	// This one stops root too.
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return "user namespaces are disabled: user.max_user_namespaces is 0"
	}
	if os.Getuid() == 0 {
		return ""
	}
	switch {
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone is 0"
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "AppArmor restricts unprivileged user namespaces: kernel.apparmor_restrict_unprivileged_userns is 1"
	}
	return ""
}

// Launch turns a command into the helper running it under the plan for
// this sandbox. In mode off the helper only supervises (nothing the
// command starts outlives it); when the helper cannot run at all, an
// unconfined mode runs the command directly and a confined one refuses.
// The helper takes the command by handoff, so proc gives it to the one
// kept for the session (s.pool), which confines a fresh thread for it.
func (s *Sandbox) Launch(x proc.Exec) (proc.Exec, error) {
	return s.launch(x, s.resolved(), s.pool)
}

// readOnly is the launcher of what shiro runs to learn about the
// toolchains (caches.go): the policy in read-only mode, with no helper
// kept waiting for it.
func (s *Sandbox) readOnly() proc.Launcher {
	return launcherFunc(func(x proc.Exec) (proc.Exec, error) {
		p := s.policy
		p.Mode = ReadOnly
		return s.launch(x, p, nil)
	})
}

// launch is Launch under pol, handing the command to a helper kept in
// pool, when there is a pool.
func (s *Sandbox) launch(x proc.Exec, pol Policy, pool *supervise.Pool) (proc.Exec, error) {
	pr := s.probe()
	if pr.err != nil {
		if pol.Mode == Off {
			return x, nil
		}
		return proc.Exec{}, pr.err
	}
	argv0 := x.Argv[0]
	if x.Path == "" && !strings.Contains(argv0, "/") {
		// Looked up in shiro's own PATH, as proc does without a launcher.
		path, err := exec.LookPath(argv0)
		if err != nil {
			return proc.Exec{}, err
		}
		argv0 = path
	}
	dir := x.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return proc.Exec{}, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	env := x.Env
	if env == nil {
		env = os.Environ()
	}
	p, rules := s.planFor(pol, pr.mounts)
	helper, err := s.helperExec(pr.helper, p, rules)
	if err != nil {
		return proc.Exec{}, err
	}
	env = withoutVar(env, planVar)
	if p.Temp != nil {
		env = append(withoutVar(env, "TMPDIR"), "TMPDIR="+p.Temp.Path)
	}
	helper.Command = &supervise.Handoff{
		Argv:  append([]string{argv0}, x.Argv[1:]...),
		Path:  x.Path,
		Dir:   dir,
		Env:   env,
		Grace: x.Grace,
	}
	helper.Pool = pool
	var starter proc.Starter = helper
	if pol.Mode != Off {
		starter = guardedStart{helper, s.guard}
	}
	return proc.Exec{Argv: x.Argv, Dir: dir, Env: env, Grace: x.Grace, Starter: starter}, nil
}

// guardedStart tells the git guard that a confined command starts, and
// that it did not when it could not start: Explain, which tells the guard
// a command ended, comes only for a command that started, and a count
// left up would have the guard take what the person does between
// commands for what a running command did.
type guardedStart struct {
	*supervise.Launch
	guard *gitGuard
}

func (g guardedStart) Start(ctx context.Context, grp proc.Group, stdio [3]*os.File) (*proc.Leader, error) {
	g.guard.started()
	leader, err := g.Launch.Start(ctx, grp, stdio)
	if err != nil {
		g.guard.notStarted()
	}
	return leader, err
}

// helperExec is what starts the helper with p and the Landlock ruleset
// for rules (when p.Landlock): handed with the command, or to the probe
// as its file 3. Its PoolKey is what the helper depends on, the plan: the
// ruleset, which holds the files the rules grant as they are now, goes
// with each command, so a helper kept for the session serves commands
// whose rules differ (a folder replaced, a read grant added).
func (s *Sandbox) helperExec(program string, p plan, rules fsRules) (*supervise.Launch, error) {
	encoded, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode the sandbox plan: %w", err)
	}
	l := &supervise.Launch{
		Argv:          []string{program, helperArg},
		Dir:           s.policy.Workspace,
		Env:           append(withoutVar(os.Environ(), planVar), planVar+"="+string(encoded)),
		PrivateMounts: len(p.Mounts) > 0 || p.Temp != nil,
		PoolKey:       string(encoded),
	}
	if p.Landlock {
		ruleset, err := s.rulesets.forCommand(rules)
		if err != nil {
			return nil, err
		}
		if p.Probe {
			l.Files = []*os.File{ruleset}
		} else {
			l.CommandFiles = []*os.File{ruleset}
		}
	}
	return l, nil
}

// planFor computes what the helper applies, from the policy and the
// filesystem as it is now: the plan (the network filter, the mounts), and
// the Landlock rules when p.Landlock.
func (s *Sandbox) planFor(pol Policy, mounts bool) (plan, fsRules) {
	p := plan{Version: planVersion, Parent: os.Getpid()}
	if s.limits != (supervise.Limits{}) {
		limits := s.limits
		p.Limits = &limits
	}
	var rules fsRules
	if pol.Mode == Off {
		return p, rules
	}
	// Root's capabilities would let a command undo any confinement.
	p.DropCaps = os.Getuid() == 0
	// Looked up once for both the rules and the mounts: it is most of
	// the plan's cost, paid before every command.
	secrets := pol.secrets()
	if s.abi > 0 {
		p.Landlock = true
		read, stamp := s.rulesets.readGrants(secrets)
		rules = fsRules{
			List:      []string{"/"},
			Read:      read,
			readStamp: stamp,
			Write:     pol.writeRoots(),
			Devices:   devices(),
			Sockets:   pol.UnixSockets,
			Network:   pol.Network,
		}
	}
	if s.seccomp {
		p.Seccomp = s.seccompFilter()
	}
	if mounts {
		p.Mounts = pol.protections(secrets)
		p.Temp, _ = s.tempFor(pol) // without it, the shared one stays (Status says why)
		if len(p.Mounts) > 0 || p.Temp != nil {
			p.DropCaps = true
		}
		// Landlock looks at the folder mounted over /tmp, not at /tmp.
		if p.Temp != nil && p.Landlock && pol.Mode == WorkspaceWrite {
			rules.Write = append(rules.Write, p.Temp.Private)
		}
	}
	return p, rules
}

// runProbe finds the helper program that runs here (helperCandidates),
// then whether private mounts work through it.
func (s *Sandbox) runProbe() probeResult {
	if os.Getenv(planVar) != "" {
		return probeResult{err: errors.New("the sandbox helper is not running in this program: its main (or TestMain) must call sandbox.MaybeRunHelper first")}
	}
	programs := s.helpers
	if programs == nil {
		programs = helperCandidates()
	}
	var pr probeResult
	for _, program := range programs {
		if pr = s.probeWith(program); pr.err == nil {
			break
		}
	}
	return pr
}

// probeWith starts program as the helper with what commands will need,
// twice at most: with private mounts, and without them if that failed.
func (s *Sandbox) probeWith(program string) probeResult {
	base, _ := s.planFor(s.policy, false)
	base.Probe = true
	rules := fsRules{Read: []string{"/"}, Network: s.policy.Network}
	if s.policy.Mode == Off {
		return probeResult{helper: program, err: s.runProbePlan(program, base, rules)}
	}
	withMounts := base
	withMounts.Mounts = []protection{{pin, s.policy.Workspace}, {readOnly, s.policy.Workspace}}
	withMounts.DropCaps = true
	mountsErr := s.runProbePlan(program, withMounts, rules)
	if mountsErr == nil {
		return probeResult{helper: program, mounts: true}
	}
	if err := s.runProbePlan(program, base, rules); err != nil {
		return probeResult{helper: program, err: err}
	}
	return probeResult{helper: program, mountsErr: mountsErr}
}

// runProbePlan runs program as the helper once with p and checks its
// answer.
func (s *Sandbox) runProbePlan(program string, p plan, rules fsRules) error {
	x, err := s.helperExec(program, p, rules)
	if err != nil {
		return err
	}
	var out, errOut strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Spec{
		Argv:     []string{"shiro-sandbox-probe"},
		Dir:      s.policy.Workspace,
		Stdout:   proc.Stream(func(b []byte) { out.Write(b) }),
		Stderr:   proc.Stream(func(b []byte) { errOut.Write(b) }),
		Launcher: fixedLauncher{x},
	})
	if err != nil {
		return fmt.Errorf("start the sandbox helper: %w", err)
	}
	if !res.Exit.Success() || !strings.Contains(out.String(), probeOK) {
		why := strings.TrimSpace(errOut.String())
		if why == "" {
			why = "it did not answer; its main (or TestMain) must call sandbox.MaybeRunHelper first"
		}
		return fmt.Errorf("the sandbox helper failed (%s): %s", res.Exit, why)
	}
	return nil
}

// fixedLauncher starts its program whatever it is given.
type fixedLauncher struct{ start *supervise.Launch }

func (f fixedLauncher) Launch(x proc.Exec) (proc.Exec, error) {
	x.Starter = f.start
	return x, nil
}

// Confined reports whether commands are confined here: the mode asks
// for it, the kernel has Landlock and the helper runs (its probe, started
// once and remembered). It is Status().Confined without the rest of the
// report, cheap enough to ask after every turn.
func (s *Sandbox) Confined() bool {
	return s.policy.Mode != Off && s.abi > 0 && s.probe().err == nil
}

// Status reports what is enforced here; it starts the helper once to
// find out.
func (s *Sandbox) Status() Status {
	st := s.commonStatus()
	pr := s.probe()
	st.Confined = s.Confined()
	switch {
	case s.policy.Mode == Off:
		st.Enforcement = "nothing: the sandbox is off"
	case s.abi == 0:
		st.Enforcement = "nothing: this kernel has no Landlock"
	case pr.err != nil:
		st.Enforcement = "nothing: " + pr.err.Error()
	default:
		st.Enforcement = fmt.Sprintf("Landlock ABI %d (Linux %s)", s.abi, kernelRelease())
	}
	st.Protected = s.protectedStatus(pr)
	st.Network = s.networkStatus()
	st.Unenforced = s.partial()
	st.Sockets = s.socketsStatus()
	st.Temp = s.tempStatus(pr)
	switch {
	case pr.err != nil && s.policy.Mode == Off:
		st.Resources = "NOT limited: each command runs directly, without a supervisor to hold it to limits"
	case pr.err == nil:
		st.Resources = s.resourcesStatus()
	}
	if pr.err != nil && s.policy.Mode == Off {
		st.Processes = "each command runs directly; processes that leave its group (setsid, daemons) outlive it (" + pr.err.Error() + ")"
	} else if pr.err != nil {
		st.Processes = "commands do not run: " + pr.err.Error()
	} else {
		st.Processes = "a supervisor (a child subreaper) runs each command and stops everything it started, in its group or not, when it ends; the supervisor and the command die with shiro (PR_SET_PDEATHSIG); the supervisor is kept for the session and confines a fresh thread for each command"
	}
	return st
}

func (s *Sandbox) protectedStatus(pr probeResult) string {
	switch {
	case s.policy.Mode == ReadOnly:
		return "everything"
	case pr.err != nil:
		return "nothing: " + pr.err.Error()
	case pr.mounts:
		return keptByMounts + " (read-only mounts in a private user namespace; the workspace and .git cannot be renamed away; a git redirect a command creates where none was is moved to " + s.quarantineDisplay() + " when it ends)"
	}
	return "NOT enforced inside the workspace: " + mountsFailed(pr)
}

func (s *Sandbox) networkStatus() string {
	if s.policy.Network {
		return "on (sandbox.network is true)"
	}
	var parts []string
	if s.abi >= 4 {
		parts = append(parts, "TCP connect denied by Landlock")
	} else if s.abi > 0 {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d has no TCP rules", s.abi))
	}
	switch {
	case s.seccomp && s.abi >= 4:
		parts = append(parts, "UDP (DNS included), raw and other sockets and io_uring refused by a seccomp filter")
	case s.seccomp:
		parts = append(parts, "every IPv4/IPv6 socket and io_uring refused by a seccomp filter")
	case s.abi >= 10:
		parts = append(parts, "UDP denied by Landlock; no seccomp filter for other sockets")
	default:
		parts = append(parts, "UDP (DNS included) is NOT filtered: no seccomp filter on this machine")
	}
	parts = append(parts, "listening is allowed; Unix sockets: see sockets")
	return "off (" + strings.Join(parts, "; ") + ")"
}

// kernelRelease is the running kernel's release, for the report.
func kernelRelease() string {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(data))
}
