package sandbox

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/supervise"
)

// Where the OS has no sandbox, the notice says so in one line, names the
// reason and the mode that is not enforced; with the sandbox off there is
// nothing to say.
func TestNoticeSaysInOneLineThatCommandsRunUnconfined(t *testing.T) {
	why := "this Linux kernel has no Landlock (it needs 5.13 or later, booted with Landlock enabled)"
	s := &Sandbox{policy: Policy{Mode: ReadOnly, Workspace: "/w"}, unavailable: why}
	notice := s.Notice()
	for _, want := range []string{why, "unconfined", "read-only is not enforced", "shiro sandbox"} {
		if !strings.Contains(notice, want) {
			t.Errorf("notice %q lacks %q", notice, want)
		}
	}
	if strings.Contains(notice, "\n") {
		t.Errorf("notice %q is more than one line", notice)
	}
	if s.Confines() {
		t.Error("a sandbox the OS cannot enforce says it confines")
	}
	if hint := s.Explain(proc.Exit{Code: 1}, []byte("touch: cannot touch '/etc/x': Permission denied")); hint != "" {
		t.Errorf("an unenforced sandbox blamed itself: %q", hint)
	}
	s.policy.Mode = Off
	if notice := s.Notice(); notice != "" {
		t.Errorf("with the sandbox off: notice %q", notice)
	}
}

// Root's commands are held to a process count only by a pids cgroup:
// where none can be made, the notice says so, once; for anyone else
// RLIMIT_NPROC holds and there is nothing to say.
func TestNoticeSaysWhenRootsCommandsHaveNoProcessLimit(t *testing.T) {
	s := &Sandbox{policy: Policy{Mode: WorkspaceWrite, Workspace: "/w"}, available: true, limits: supervise.Limits{Tasks: 1024}}
	if why := s.unlimitedProcesses(0); !strings.Contains(why, "processes are not limited") {
		t.Errorf("root without a pids cgroup: %q", why)
	}
	if why := s.unlimitedProcesses(1001); why != "" {
		t.Errorf("another user: %q", why)
	}
	s.limits.PidsCgroup = "/sys/fs/cgroup/pids"
	if why := s.unlimitedProcesses(0); why != "" {
		t.Errorf("root with a pids cgroup: %q", why)
	}
}
