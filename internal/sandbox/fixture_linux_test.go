package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// testDeadline bounds every wait; nothing here sleeps for something to
// happen.
const testDeadline = 20 * time.Second

// fixture is a machine in miniature: a workspace with a git folder and a
// project config, a home directory with secrets, shiro's own folder, a
// temp dir, and a canary folder outside all of them.
type fixture struct {
	ws, home, state, tmp, outside string
	policy                        sandbox.Policy
}

// Fixed contents, checked byte for byte after an attack.
const (
	hookBody    = "#!/bin/sh\nexit 0\n"
	gitConfig   = "[core]\n\tbare = false\n"
	projectConf = `{"permission":{"bash":"ask"}}`
	stateConf   = `{"apiKey":"sk-test-secret","plugins":["guard"]}`
	sshKey      = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-bytes\n"
	awsCreds    = "[default]\naws_secret_access_key = aws-secret\n"
	canaryBody  = "canary: intact\n"
)

// requireLandlock skips a test that needs this kernel's Landlock.
func requireLandlock(t *testing.T) {
	t.Helper()
	if ok, why := sandbox.Available(); !ok {
		sandbox.NeedSandbox(t, why)
	}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	requireLandlock(t)
	root := t.TempDir()
	f := &fixture{
		ws:      filepath.Join(root, "ws"),
		home:    filepath.Join(root, "home"),
		tmp:     filepath.Join(root, "tmp"),
		outside: filepath.Join(root, "outside"),
	}
	f.state = filepath.Join(f.home, ".shiro-neko")
	files := map[string]string{
		filepath.Join(f.ws, "README.md"):                   "hello\n",
		filepath.Join(f.ws, ".git", "hooks", "pre-commit"): hookBody,
		filepath.Join(f.ws, ".git", "config"):              gitConfig,
		filepath.Join(f.ws, ".git", "HEAD"):                "ref: refs/heads/main\n",
		filepath.Join(f.ws, ".shiro", "config.json"):       projectConf,
		filepath.Join(f.home, ".ssh", "id_ed25519"):        sshKey,
		filepath.Join(f.home, ".aws", "credentials"):       awsCreds,
		filepath.Join(f.home, "notes.txt"):                 "not a secret\n",
		filepath.Join(f.state, "config.json"):              stateConf,
		filepath.Join(f.state, "hooks.json"):               `{"trusted":[]}`,
		filepath.Join(f.state, "hook-cache", "h1"):         "#!/bin/sh\necho from-hook-cache\n",
		filepath.Join(f.outside, "canary.txt"):             canaryBody,
		filepath.Join(f.tmp, ".keep"):                      "",
	}
	for path, body := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.policy = sandbox.Policy{
		Mode: sandbox.WorkspaceWrite, Workspace: f.ws, Home: f.home, State: f.state, Quarantine: filepath.Join(f.state, "quarantine"),
		ConfigFile: filepath.Join(f.state, "config.json"), Temp: f.tmp,
	}
	return f
}

func (f *fixture) sandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New(f.policy)
	if err != nil {
		t.Fatal(err)
	}
	// The helper being started for the next command makes the folders it
	// mounts over (.git/hooks, .git/info) when they are missing: let it
	// finish before the test's folders are removed.
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	return sb
}

// run runs a bash script in the workspace through a sandbox of f's
// policy, as the bash tool does, and returns the result and the output
// (stdout and stderr interleaved).
func (f *fixture) run(t *testing.T, script string) (proc.Result, string) {
	t.Helper()
	return runIn(t, f.sandbox(t), f.ws, script)
}

func runIn(t *testing.T, launcher proc.Launcher, dir, script string) (proc.Result, string) {
	t.Helper()
	out := &syncBuffer{}
	res, err := proc.Run(t.Context(), proc.Spec{
		Argv:          []string{"bash", "--norc", "-c", script},
		Dir:           dir,
		Stdout:        proc.Stream(out.write),
		Stderr:        proc.SameAsStdout{},
		Grace:         time.Second,
		NewSession:    true,
		DieWithParent: true,
		Launcher:      launcher,
	})
	if err != nil {
		t.Fatalf("run %q: %v", script, err)
	}
	return res, out.String()
}

// mustFail runs script and fails the test unless it fails.
func (f *fixture) mustFail(t *testing.T, script string) string {
	t.Helper()
	res, out := f.run(t, script)
	if res.Exit.Success() {
		t.Errorf("%q succeeded under the sandbox; output:\n%s", script, out)
	}
	return out
}

// mustPass runs script and fails the test unless it succeeds.
func (f *fixture) mustPass(t *testing.T, script string) string {
	t.Helper()
	res, out := f.run(t, script)
	if !res.Exit.Success() {
		t.Errorf("%q failed under the sandbox (%s); output:\n%s", script, res.Exit, out)
	}
	return out
}

// assertFile fails unless path holds exactly want.
func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if string(got) != want {
		t.Errorf("%s holds %q, want %q", path, got, want)
	}
}

// assertMissing fails if path exists.
func assertMissing(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (%v); it should not", path, err)
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) write(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// pidsAfter reads the numbers on the lines of out that start with prefix.
func pidsAfter(t *testing.T, out, prefix string) []int {
	t.Helper()
	var pids []int
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil || pid <= 1 {
				t.Fatalf("line %q holds no pid", line)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no line starts with %q in:\n%s", prefix, out)
	}
	return pids
}

// goneNow reports whether pid names no process at all (not even a zombie).
func goneNow(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// exits waits up to testDeadline for pid to exit; a pidfd turns readable
// when it does, so nothing is polled.
func exits(t *testing.T, pid int) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		sandbox.NeedSandbox(t, "pidfd_open: "+err.Error())
	}
	defer func() { _ = unix.Close(fd) }()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(testDeadline.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}
