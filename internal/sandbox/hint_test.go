package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
)

// hintSandbox is a sandbox that confines (as far as Explain knows) with
// a workspace at /w, a home at /home/u and shiro's folder in it.
func hintSandbox(mode Mode, network bool) *Sandbox {
	return &Sandbox{available: true, policy: Policy{
		Mode: mode, Workspace: "/w", Home: "/home/u", State: "/home/u/.shiro-neko",
		ConfigFile: "/home/u/.shiro-neko/config.json", Temp: "/tmp", Network: network,
	}}
}

func TestExplainNamesTheDeniedPathAndTheWayOut(t *testing.T) {
	failed := proc.Exit{Code: 1}
	for _, c := range []struct {
		name, output string
		mode         Mode
		network      bool
		want         []string // "" = no hint
	}{
		{"go build cache", "go: creating work dir: mkdir /home/u/.cache/go-build/ab: permission denied\n", WorkspaceWrite, false,
			[]string{"~/.cache/go-build/ab may have been denied", "add ~/.cache/go-build to sandbox.writable in /home/u/.shiro-neko/config.json", "--sandbox off"}},
		{"touch outside", "touch: cannot touch '/etc/motd': Permission denied\n", WorkspaceWrite, false,
			[]string{"/etc/motd may have been denied", "add /etc to sandbox.writable"}},
		{"program name first", "/usr/bin/bash: line 1: /opt/x: Permission denied\n", WorkspaceWrite, false,
			[]string{"/opt/x may have been denied"}},
		{"python", "PermissionError: [Errno 13] Permission denied: '/var/lib/x'\n", WorkspaceWrite, false,
			[]string{"/var/lib/x may have been denied"}},
		{"git hook", "bash: .git/hooks/pre-commit: Read-only file system\n", WorkspaceWrite, false,
			[]string{".git/hooks/pre-commit may have been denied", "stay read-only"}},
		{"git config", "error: could not write config file .git/config: Device or resource busy\n", WorkspaceWrite, false,
			[]string{".git/config may have been denied", "stay read-only"}},
		{"secret", "cat: /home/u/.ssh/id_rsa: Permission denied\n", WorkspaceWrite, false,
			[]string{"~/.ssh/id_rsa may have been denied", "secret location"}},
		{"read-only mode", "bash: out.txt: Permission denied\n", ReadOnly, false,
			[]string{"writing /w/out.txt may have been denied", "--sandbox workspace-write"}},
		{"tcp connect", "dial tcp 127.0.0.1:8080: connect: permission denied\n", WorkspaceWrite, false,
			[]string{"network may have been denied", "sandbox.network to true"}},
		{"bash /dev/tcp", "bash: connect: Permission denied\nbash: line 1: /dev/tcp/127.0.0.1/8080: Permission denied\n", WorkspaceWrite, false,
			[]string{"network may have been denied", "sandbox.network to true"}},
		{"docker socket", "Cannot connect to the Docker daemon: dial unix /var/run/docker.sock: socket: operation not permitted\n", WorkspaceWrite, true,
			[]string{"Unix socket may have been refused", "sandbox.unixSockets"}},
		{"ssh agent", "Error connecting to agent: Operation not permitted\n", WorkspaceWrite, false,
			[]string{"Unix socket may have been refused"}},
		{"dns", "curl: (6) Could not resolve host: example.com\n", WorkspaceWrite, false,
			[]string{"network may have been denied"}},
		{"network on", "curl: (6) Could not resolve host: example.com\n", WorkspaceWrite, true, nil},
		{"inside the workspace", "bash: ./run.sh: Permission denied\n", WorkspaceWrite, false, nil},
		{"temp", "open /tmp/x: permission denied\n", WorkspaceWrite, false, nil},
		{"unrelated failure", "FAIL: TestThing (0.01s)\n", WorkspaceWrite, false, nil},
		{"mode off", "touch: cannot touch '/etc/motd': Permission denied\n", Off, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := hintSandbox(c.mode, c.network).Explain(failed, []byte(c.output))
			if c.want == nil {
				if got != "" {
					t.Errorf("hint %q, want none", got)
				}
				return
			}
			if !strings.HasPrefix(got, "shiro sandbox: ") {
				t.Errorf("hint %q does not say it comes from the sandbox", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("hint %q lacks %q", got, w)
				}
			}
		})
	}
	if got := hintSandbox(WorkspaceWrite, false).Explain(proc.Exit{Code: 0}, []byte("touch: cannot touch '/etc/x': Permission denied")); got != "" {
		t.Errorf("a command that succeeded got a hint: %q", got)
	}
	s := hintSandbox(WorkspaceWrite, false)
	s.available = false
	if got := s.Explain(failed, []byte("touch: cannot touch '/etc/x': Permission denied")); got != "" {
		t.Errorf("a sandbox that confines nothing blamed itself: %q", got)
	}
}

func TestLastPathInPrefersThePathNearestTheError(t *testing.T) {
	for line, want := range map[string]string{
		"touch: cannot touch '/etc/x': Permission denied":   "/etc/x",
		"/usr/bin/bash: line 1: /opt/y: Permission denied":  "/opt/y",
		"open /a/b: permission denied":                      "/a/b",
		"Permission denied: \"~/.cache/pip\"":               "~/.cache/pip",
		"mkdir: cannot create directory ‘build’: Read-only": "build",
		"bash: line 1: out.txt: Permission denied":          "out.txt",
		"Permission denied":                                 "",
	} {
		if got := lastPathIn(line); got != want {
			t.Errorf("lastPathIn(%q) = %q, want %q", line, got, want)
		}
	}
	if got := hintSandbox(WorkspaceWrite, false).absolute("~/.cache/pip"); got != filepath.Join("/home/u", ".cache/pip") {
		t.Errorf("absolute(~/.cache/pip) = %s", got)
	}
}

// A symlink in the workspace to a folder outside leads outside: the
// kernel refused the folder outside, and the hint says so.
func TestExplainFollowsSymlinksOutOfTheWorkspace(t *testing.T) {
	root := t.TempDir()
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	for _, dir := range []string{ws, outside} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../outside", filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	// The temp dir is elsewhere: t.TempDir() is in the real one.
	s := &Sandbox{available: true, policy: Policy{Workspace: ws, Home: "/home/u", Temp: "/nonexistent/tmp"}}
	got := s.Explain(proc.Exit{Code: 1}, []byte("bash: line 1: escape/canary.txt: Permission denied\n"))
	if want := filepath.Join(outside, "canary.txt") + " may have been denied"; !strings.Contains(got, want) {
		t.Errorf("hint %q, want it to name %q", got, want)
	}
	if got := s.Explain(proc.Exit{Code: 1}, []byte("bash: line 1: made/new.txt: Permission denied\n")); got != "" {
		t.Errorf("a path inside the workspace that does not exist yet got a hint: %q", got)
	}
	// A dangling link is followed to where the file would have been made,
	// and "escape/.." is the folder above the link's target, not the
	// workspace: the kernel resolves the link before the "..".
	if err := os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(ws, "notes")); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"touch: cannot touch 'notes': Permission denied\n":              filepath.Join(outside, "new.txt"),
		"bash: line 1: escape/../made.txt: Permission denied\n":         filepath.Join(root, "made.txt"),
		"bash: line 1: escape/../outside/made.txt: Permission denied\n": filepath.Join(outside, "made.txt"),
	} {
		if got := s.Explain(proc.Exit{Code: 1}, []byte(line)); !strings.Contains(got, want+" may have been denied") {
			t.Errorf("%q: hint %q, want it to name %q", line, got, want)
		}
	}
}

// A command that changed folder before it failed names a path relative
// to where it went; it is not in the workspace, and the hint says what
// the sandbox allows without guessing the folder.
func TestExplainARelativePathAfterTheCommandChangedFolder(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "run.sh"), []byte("echo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{available: true, policy: Policy{Mode: WorkspaceWrite, Workspace: ws, Home: "/home/u", ConfigFile: "/home/u/.shiro-neko/config.json", Temp: "/tmp"}}
	failed := proc.Exit{Code: 1}
	got := s.Explain(failed, []byte("touch: cannot touch 'made.txt': Permission denied\n"))
	for _, want := range []string{"made.txt may have been denied", "not in the workspace", "sandbox.writable in /home/u/.shiro-neko/config.json"} {
		if !strings.Contains(got, want) {
			t.Errorf("hint %q lacks %q", got, want)
		}
	}
	if got := s.Explain(failed, []byte("bash: ./run.sh: Permission denied\n")); got != "" {
		t.Errorf("a file in the workspace refused for its own mode got a hint: %q", got)
	}
}

// A workspace that is a bare repository keeps its hooks and config
// read-only (its mounts, its Seatbelt profile), and a command refused
// there is told so.
func TestExplainAProtectedPathOfABareRepository(t *testing.T) {
	ws := bareRepo(t)
	s := &Sandbox{available: true, policy: Policy{Mode: WorkspaceWrite, Workspace: ws, Home: "/home/u", Temp: "/tmp"}}
	for _, line := range []string{
		"bash: hooks/post-update: Read-only file system\n",
		"error: could not write config file config: Device or resource busy\n",
	} {
		if got := s.Explain(proc.Exit{Code: 1}, []byte(line)); !strings.Contains(got, "stay read-only") {
			t.Errorf("%q: hint %q, want it to say they stay read-only", line, got)
		}
	}
}

// bareRepo makes a folder laid out as a bare repository.
func bareRepo(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	mkfiles(t, ws, "HEAD", "config", "objects/", "refs/heads/", "hooks/post-update")
	return ws
}
