package sandbox

import (
	"os"
	"os/exec"
	"strings"

	"github.com/shiro-neko/shiro/internal/proc"
)

// sandboxExec applies a Seatbelt profile to a command.
const sandboxExec = "/usr/bin/sandbox-exec"

// Available reports whether this Mac has sandbox-exec.
func Available() (bool, string) {
	if _, err := os.Stat(sandboxExec); err != nil {
		return false, "this Mac has no " + sandboxExec
	}
	return true, ""
}

func (s *Sandbox) detect() {}

func (s *Sandbox) partial() string { return "" }

// runProbe has nothing to learn: sandbox-exec is a program of its own.
func (s *Sandbox) runProbe() probeResult { return probeResult{} }

// Launch runs the command under sandbox-exec with the profile for this
// sandbox. macOS has no child subreaper: commands are stopped by their
// process group, as without a sandbox, and processes that leave it
// outlive the command.
func (s *Sandbox) Launch(x proc.Exec) (proc.Exec, error) {
	return s.launch(x, s.resolved())
}

// readOnly is the launcher of what shiro runs to learn about the
// toolchains (caches.go): the policy in read-only mode.
func (s *Sandbox) readOnly() proc.Launcher {
	return launcherFunc(func(x proc.Exec) (proc.Exec, error) {
		p := s.policy
		p.Mode = ReadOnly
		return s.launch(x, p)
	})
}

func (s *Sandbox) launch(x proc.Exec, p Policy) (proc.Exec, error) {
	if !s.Confines() {
		return x, nil // off, or no sandbox-exec here (Notice said so at start)
	}
	argv0 := x.Argv[0]
	if x.Path != "" {
		argv0 = x.Path // sandbox-exec gives the program its file as argv[0]
	} else if !strings.Contains(argv0, "/") {
		path, err := exec.LookPath(argv0)
		if err != nil {
			return proc.Exec{}, err
		}
		argv0 = path
	}
	profile := p.seatbeltProfile(p.secrets())
	argv := append([]string{sandboxExec, "-p", profile, argv0}, x.Argv[1:]...)
	return proc.Exec{Argv: argv, Dir: x.Dir, Env: x.Env, Grace: x.Grace}, nil
}

// Confined reports whether commands are confined here (Status().Confined
// without the rest of the report): one stat of sandbox-exec.
func (s *Sandbox) Confined() bool {
	ok, _ := Available()
	return s.policy.Mode != Off && ok
}

// Status reports what is enforced here.
func (s *Sandbox) Status() Status {
	st := s.commonStatus()
	ok, why := Available()
	st.Confined = s.Confined()
	switch {
	case s.policy.Mode == Off:
		st.Enforcement = "nothing: the sandbox is off"
	case !ok:
		st.Enforcement = "nothing: " + why
	default:
		st.Enforcement = "sandbox-exec (Seatbelt)"
	}
	st.Protected = ".git/hooks, .git/config, .shiro/ and shiro's own folder (profile rules by path)"
	if s.policy.Mode == ReadOnly {
		st.Protected = "everything"
	}
	st.Network = "off (no network rule is granted)"
	if s.policy.Network {
		st.Network = "on (sandbox.network is true)"
	}
	st.Processes = "each command leads a process group that is stopped when it ends; macOS has no child subreaper, so processes that leave the group (setsid, daemons) outlive it"
	return st
}
