package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

func TestCommandsGetAPrivateTemp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := filepath.Join(f.tmp, "someone-else.txt")
	if err := os.WriteFile(other, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A tmux server's socket, as tmux lays it out.
	if err := os.Mkdir(filepath.Join(f.tmp, "tmux-0"), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(f.tmp, "tmux-0", "default"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })

	sb := f.sandbox(t)
	res, out := runIn(t, sb, f.ws, fmt.Sprintf(`echo "TMPDIR=$TMPDIR"; echo "LS: $(ls -A %[1]q | tr '\n' ' ')"; test -e %[1]q/tmux-0/default && echo SOCKET-SEEN; cat %[2]q; echo mine > %[1]q/mine.txt && echo WROTE`, f.tmp, other))
	if !res.Exit.Success() {
		t.Fatalf("the command failed (%s):\n%s", res.Exit, out)
	}
	if !strings.Contains(out, "TMPDIR="+f.tmp+"\n") {
		t.Errorf("TMPDIR does not name the temp folder:\n%s", out)
	}
	listing, _, _ := strings.Cut(strings.SplitN(out, "LS: ", 2)[1], "\n")
	if strings.Contains(out, "SOCKET-SEEN") || strings.Contains(out, "theirs") || strings.Contains(listing, "someone-else") || strings.Contains(listing, "tmux") {
		t.Errorf("the shared temp folder's contents are reachable:\n%s", out)
	}
	if !strings.Contains(out, "WROTE") {
		t.Errorf("a write to the temp folder failed:\n%s", out)
	}
	assertMissing(t, filepath.Join(f.tmp, "mine.txt"))
	private, _ := filepath.Glob(filepath.Join(f.tmp, "shiro-sandbox-*"))
	if len(private) != 1 {
		t.Fatalf("want one private temp folder, found %v", private)
	}
	if fi, err := os.Stat(private[0]); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the private temp folder: %v, %v; want mode 0700", fi, err)
	}
	assertFile(t, filepath.Join(private[0], "mine.txt"), "mine\n")

	// The next command of the session finds what the last one left.
	if res, out := runIn(t, sb, f.ws, fmt.Sprintf(`cat %q`, filepath.Join(f.tmp, "mine.txt"))); !res.Exit.Success() || out != "mine\n" {
		t.Errorf("the next command does not see the session's temp files (%s): %q", res.Exit, out)
	}
	// The session's end removes it.
	sb.Ready()
	sb.Close()
	assertMissing(t, private[0])
	assertFile(t, other, "theirs\n")
}

// A workspace inside the shared temp folder stays where it is, writable,
// while the rest of the temp folder is out of reach.
func TestAWorkspaceInTheTempFolderStaysReachable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.policy.Temp = filepath.Dir(f.ws) // holds ws, home, outside, tmp
	out := f.mustPass(t, fmt.Sprintf(`cat README.md && echo new > new.txt && ls -A %q`, filepath.Dir(f.ws)))
	if !strings.Contains(out, "hello\n") {
		t.Errorf("the workspace is not readable:\n%s", out)
	}
	if strings.Contains(out, "outside") {
		t.Errorf("the rest of the temp folder is reachable:\n%s", out)
	}
	assertFile(t, filepath.Join(f.ws, "new.txt"), "new\n")
	f.mustFail(t, fmt.Sprintf(`cat %q`, filepath.Join(f.outside, "canary.txt")))
	// What protects the workspace still holds there.
	f.mustFail(t, `echo x >> .git/hooks/pre-commit`)
	assertFile(t, filepath.Join(f.ws, ".git", "hooks", "pre-commit"), hookBody)
}

// In read-only mode too a workspace inside the temp folder stays where it
// is, readable and not writable: before, only writable folders were kept
// beneath the cover, so a read-only command found no folder to start in.
func TestAReadOnlyWorkspaceInTheTempFolderStaysReachable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.policy.Temp = filepath.Dir(f.ws)
	f.policy.Mode = sandbox.ReadOnly
	out := f.mustPass(t, `cat README.md`)
	if !strings.Contains(out, "hello\n") {
		t.Errorf("the workspace is not readable:\n%s", out)
	}
	f.mustFail(t, `echo new > new.txt`)
	assertMissing(t, filepath.Join(f.ws, "new.txt"))
}

// shiro's own folder under the temp folder (SHIRO_HOME in a test or on
// CI) keeps, beneath the private /tmp, what commands may read there: a
// hook runs from its verified copy in hook-cache. The rest of it, the
// config with the key above all, stays out of reach.
func TestShirosReadableStateInTheTempFolderStaysReachable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.policy.Temp = filepath.Dir(f.ws) // holds ws and home, with the state folder
	out := f.mustPass(t, fmt.Sprintf(`sh %q`, filepath.Join(f.state, "hook-cache", "h1")))
	if !strings.Contains(out, "from-hook-cache") {
		t.Errorf("the hook cache is not reachable:\n%s", out)
	}
	f.mustFail(t, fmt.Sprintf(`cat %q`, filepath.Join(f.state, "config.json")))
	f.mustFail(t, fmt.Sprintf(`echo x >> %q`, filepath.Join(f.state, "hook-cache", "h1")))
	f.mustFail(t, fmt.Sprintf(`cat %q`, filepath.Join(f.home, ".ssh", "id_ed25519")))
}
