package supervise

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// privateMountsLauncher runs the command itself in private mounts.
type privateMountsLauncher struct{}

func (privateMountsLauncher) Launch(x proc.Exec) (proc.Exec, error) {
	x.Starter = &Launch{Argv: x.Argv, Dir: x.Dir, Env: x.Env, PrivateMounts: true}
	return x, nil
}

// A program started with PrivateMounts runs as the user (uid and gid
// mapped to themselves, so what it creates is the user's outside), and
// keeps, in its own namespace, the capability to mount there: without
// it, anyone but root could not make a single mount (issue 21).
func TestPrivateMountsKeepTheUserAndTheRightToMount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := newCollector()
	res := mustRun(t, proc.Spec{
		Argv:     sh(`id -u; id -g; grep '^CapEff:' /proc/self/status; readlink /proc/self/ns/user; echo made > made.txt`),
		Dir:      dir,
		Stdout:   out.stream(),
		Stderr:   proc.SameAsStdout{},
		Launcher: privateMountsLauncher{},
	})
	if !res.Exit.Success() {
		t.Fatalf("the program failed (%s): %s", res.Exit, out)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("output %q: want four lines", out)
	}
	if lines[0] != strconv.Itoa(os.Getuid()) || lines[1] != strconv.Itoa(os.Getgid()) {
		t.Errorf("the program ran as uid %s gid %s; want %d %d", lines[0], lines[1], os.Getuid(), os.Getgid())
	}
	capEff, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(lines[2], "CapEff:")), 16, 64)
	if err != nil {
		t.Fatalf("line %q: %v", lines[2], err)
	}
	for _, c := range []uint{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP} {
		if capEff&(1<<c) == 0 {
			t.Errorf("effective capabilities %#x lack capability %d", capEff, c)
		}
	}
	own, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		t.Fatal(err)
	}
	if lines[3] == own {
		t.Errorf("the program runs in shiro's user namespace %s", own)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(dir, "made.txt"), &st); err != nil {
		t.Fatal(err)
	}
	if int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid() {
		t.Errorf("the file it made belongs to %d:%d, want %d:%d", st.Uid, st.Gid, os.Getuid(), os.Getgid())
	}
}
