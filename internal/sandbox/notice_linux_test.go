package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// When the probe could not make private mounts, for whatever reason, the
// notice says in one line what is not kept and why; so does it for a
// network the kernel cannot cut off. With everything enforced it says
// nothing.
func TestNoticeSaysWhatIsNotEnforcedAndWhy(t *testing.T) {
	why := "protect /w (pin): clone the mount: operation not permitted"
	s := &Sandbox{
		policy: Policy{Mode: WorkspaceWrite, Workspace: "/w"}, available: true, abi: 7, seccomp: true,
		probe: func() probeResult { return probeResult{mountsErr: errors.New(why)} },
	}
	notice := s.Notice()
	for _, want := range []string{".git/hooks, .git/config", "NOT kept read-only", why, "`shiro sandbox`"} {
		if !strings.Contains(notice, want) {
			t.Errorf("notice %q lacks %q", notice, want)
		}
	}
	if strings.Contains(notice, "\n") {
		t.Errorf("notice %q is more than one line", notice)
	}

	s.seccomp = false
	if notice := s.Notice(); !strings.Contains(notice, "NOT kept read-only") || !strings.Contains(notice, "UDP (DNS included) is NOT filtered") ||
		!strings.Contains(notice, "Unix sockets are NOT refused") {
		t.Errorf("without seccomp: notice %q", notice)
	}
	s.seccomp = true
	s.policy.Network = true
	if notice := s.Notice(); strings.Contains(notice, "UDP") {
		t.Errorf("with the network on, the notice still speaks of it: %q", notice)
	}

	// Nothing inside a writable folder to keep, but the private /tmp is
	// made by the same mounts.
	s.policy.Mode = ReadOnly
	if notice := s.Notice(); strings.Contains(notice, "NOT kept read-only") || !strings.Contains(notice, "share /tmp") {
		t.Errorf("read-only mode: notice %q", notice)
	}
	s.policy.Mode = WorkspaceWrite
	s.probe = func() probeResult { return probeResult{mounts: true} }
	if notice := s.Notice(); notice != "" {
		t.Errorf("with every protection enforced: notice %q", notice)
	}
	s.probe = func() probeResult {
		return probeResult{mountsErr: errors.New("the sandbox helper failed (exit 126): one\ntwo")}
	}
	if notice := s.Notice(); strings.Contains(notice, "\n") || !strings.Contains(notice, "one two") {
		t.Errorf("a failure of several lines: notice %q, want one line", notice)
	}
	s.probe = func() probeResult { return probeResult{err: errors.New("the sandbox helper failed")} }
	if notice := s.Notice(); !strings.Contains(notice, "commands cannot run: the sandbox helper failed") {
		t.Errorf("with a helper that does not run: notice %q", notice)
	}
}
