package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/proc/proctest"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// The cost the sandbox adds to every command: compare each case with
// "direct". Each command finds its helper started, mounted and confined
// ahead, as a command does in a session once the one before it has
// started (supervise.Pool): the wait for that helper stays out of the timing.
// The last case has none waiting (its pool is closed), as the first
// command of a session.
func BenchmarkCommand(b *testing.B) {
	if ok, why := sandbox.Available(); !ok {
		b.Skip(why)
	}
	bare := b.TempDir()
	repo := b.TempDir()
	for _, dir := range []string{".git/hooks", ".shiro"} {
		if err := os.MkdirAll(filepath.Join(repo, dir), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	newSandbox := func(mode sandbox.Mode, ws string) *sandbox.Sandbox {
		sb, err := sandbox.New(sandbox.Policy{Mode: mode, Workspace: ws, Home: home, State: filepath.Join(home, ".shiro-neko")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(sb.Close)
		return sb
	}
	closed := func(sb *sandbox.Sandbox) *sandbox.Sandbox { sb.Close(); return sb }
	for _, c := range []struct {
		name     string
		dir      string
		launcher *sandbox.Sandbox
	}{
		{"direct", bare, nil},
		{"supervised only (mode off)", bare, newSandbox(sandbox.Off, bare)},
		{"workspace-write", bare, newSandbox(sandbox.WorkspaceWrite, bare)},
		{"workspace-write with .git (private mounts)", repo, newSandbox(sandbox.WorkspaceWrite, repo)},
		{"workspace-write with .git, no helper waiting", repo, closed(newSandbox(sandbox.WorkspaceWrite, repo))},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := proc.Spec{Argv: []string{"/bin/echo", "started"}, Dir: c.dir, NewSession: true, DieWithParent: true}
			ready := func() {}
			if c.launcher != nil {
				spec.Launcher, ready = c.launcher, c.launcher.Ready
			}
			proctest.Timing(b, spec, ready)
		})
	}
}
