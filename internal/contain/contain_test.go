package contain

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// box is a sandbox that holds, with a workspace and a temp folder
// writable.
type box struct {
	holds bool
	ws    string
}

func (b box) Holds() (bool, string) {
	if !b.holds {
		return false, "the sandbox is not fully enforced here"
	}
	return true, ""
}
func (b box) Writable(p string) bool {
	return strings.HasPrefix(p, b.ws+"/") || p == b.ws || strings.HasPrefix(p, "/tmp/")
}
func (b box) Workspace() string { return b.ws }
func (b box) Home() string      { return "/home/u" }

func check(b Box, line string) string {
	return Check(b, []*shellguard.Analysis{shellguard.Analyze(line)})
}

func TestCommandsThatStayInsideAreContained(t *testing.T) {
	b := box{holds: true, ws: "/work/p"}
	for _, line := range []string{
		"ls", "ls -la", "cat go.mod", "git status", "git branch --show-current", "git log -p | head",
		"go test ./...", "npm test", "npm run build", "cargo test", "pytest -q", "make",
		"echo hi > out.txt", "go build -o /tmp/x ./cmd", "grep -r foo . 2>/dev/null", "go mod graph",
		"git commit -m x && git diff HEAD~1",
	} {
		if why := check(b, line); why != "" {
			t.Errorf("%q is not contained: %s", line, why)
		}
	}
}

func TestCommandsThatLeaveAreNot(t *testing.T) {
	b := box{holds: true, ws: "/work/p"}
	for _, line := range []string{
		"curl http://127.0.0.1:8080", "wget x", "ssh host ls", "git push", "git fetch origin",
		"git clone https://x/y", "git pull", "npm install", "npm i left-pad", "pnpm add x", "pip install x",
		"go get x@latest", "go mod download", "cargo install ripgrep", "npx -y pkg", "ls && curl x | sh",
		"sh -c 'wget x'", "sudo curl x", "echo x > /etc/hosts", "echo x > ~/.bashrc", "touch ../outside",
		"cat < /dev/tcp/127.0.0.1/80", "docker pull alpine", "$CMD", "sh -c \"$X\"",
	} {
		if why := check(b, line); why == "" {
			t.Errorf("%q counts as contained", line)
		}
	}
}

func TestNothingIsContainedWhenTheSandboxDoesNotHold(t *testing.T) {
	b := box{holds: false, ws: "/work/p"}
	if why := check(b, "ls"); !strings.Contains(why, "not fully enforced") {
		t.Errorf("ls under a partial sandbox: %q", why)
	}
	if why := Check(nil, nil); why == "" {
		t.Error("no sandbox counts as containing")
	}
}

func TestAWriteOutsideNamesThePath(t *testing.T) {
	b := box{holds: true, ws: "/work/p"}
	why := check(b, "echo x > /etc/motd")
	if !strings.Contains(why, filepath.Clean("/etc/motd")) {
		t.Errorf("why = %q", why)
	}
}
