//go:build !linux && !darwin

package sandbox

import (
	"runtime"

	"github.com/shiro-neko/shiro/internal/proc"
)

// platform names the operating system for messages.
func platform() string { return runtime.GOOS }

// Available reports that this system has no OS sandbox shiro can use.
func Available() (bool, string) {
	return false, "shiro has no OS sandbox for " + platform()
}

func (s *Sandbox) detect() {}

func (s *Sandbox) partial() string { return "" }

func (s *Sandbox) runProbe() probeResult { return probeResult{} }

// Launch runs the command as it is: there is nothing to confine it with.
func (s *Sandbox) Launch(x proc.Exec) (proc.Exec, error) { return x, nil }

// readOnly is the launcher of what shiro runs to learn about the
// toolchains (caches.go): here, like every command, unconfined.
func (s *Sandbox) readOnly() proc.Launcher { return s }

// Confined reports that commands are not confined: there is nothing to
// confine them with.
func (s *Sandbox) Confined() bool { return false }

// Status reports that nothing is enforced.
func (s *Sandbox) Status() Status {
	st := s.commonStatus()
	_, why := Available()
	st.Enforcement = "nothing: " + why
	if s.policy.Mode == Off {
		st.Enforcement = "nothing: the sandbox is off"
	}
	st.Protected, st.Network = "not enforced", "not enforced"
	st.Processes = "each command is stopped as a whole where the system has process groups; processes that leave the group outlive it"
	return st
}
