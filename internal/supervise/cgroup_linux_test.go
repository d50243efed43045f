package supervise

import (
	"os"
	"path/filepath"
	"testing"
)

// The room a command has is the tightest of the pids limits above it,
// however deep; folders without a limit ("max") do not count.
func TestPidsRoomIsTheTightestLimitAbove(t *testing.T) {
	top := t.TempDir()
	write := func(dir, max, current string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, value := range map[string]string{"pids.max": max + "\n", "pids.current": current + "\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	user := filepath.Join(top, "user.slice")
	session := filepath.Join(user, "session-1.scope")
	write(user, "1000", "700")
	write(session, "max", "40")
	if room, ok := pidsRoom(session); !ok || room != 300 {
		t.Errorf("room %d, %v; want 300 (the user slice's)", room, ok)
	}
	write(session, "100", "40")
	if room, ok := pidsRoom(session); !ok || room != 60 {
		t.Errorf("room %d, %v; want 60 (the session's)", room, ok)
	}
	write(user, "max", "700")
	write(session, "max", "40")
	if _, ok := pidsRoom(session); ok {
		t.Error("a room was found where nothing sets a limit")
	}
}

func TestMountinfoEscapes(t *testing.T) {
	if got := unescapeMount(`/sys/fs/cgroup/my\040pids`); got != "/sys/fs/cgroup/my pids" {
		t.Errorf("got %q", got)
	}
}

// This process's own cgroup is found in each v1 hierarchy that is
// mounted, as the kernel lists it.
func TestOwnCgroupDirExists(t *testing.T) {
	dir, err := ownCgroupDir("pids", false)
	if err != nil {
		t.Skipf("no cgroup v1 pids hierarchy here: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		t.Errorf("%s is not a cgroup: %v", dir, err)
	}
}
