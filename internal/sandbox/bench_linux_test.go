package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// The cost the sandbox adds to every command: compare each case with
// "direct". The helper is this test binary re-executed, whose package
// initialisation is smaller than shiro's; docs/sandbox.md has the figures
// for the shiro binary.
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
	newSandbox := func(mode sandbox.Mode, ws string) proc.Launcher {
		sb, err := sandbox.New(sandbox.Policy{Mode: mode, Workspace: ws, Home: home, State: filepath.Join(home, ".shiro-neko")})
		if err != nil {
			b.Fatal(err)
		}
		return sb
	}
	for _, c := range []struct {
		name     string
		dir      string
		launcher proc.Launcher
	}{
		{"direct", bare, nil},
		{"supervised only (mode off)", bare, newSandbox(sandbox.Off, bare)},
		{"workspace-write", bare, newSandbox(sandbox.WorkspaceWrite, bare)},
		{"workspace-write with .git (private mounts)", repo, newSandbox(sandbox.WorkspaceWrite, repo)},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := proc.Spec{Argv: []string{"/bin/true"}, Dir: c.dir, NewSession: true, DieWithParent: true,
				Stdout: proc.Stream(func([]byte) {}), Stderr: proc.SameAsStdout{}, Launcher: c.launcher}
			// The first command starts the probe: leave it out.
			if res, err := proc.Run(context.Background(), spec); err != nil || !res.Exit.Success() {
				b.Fatal(res, err)
			}
			// On a loaded machine the mean mostly measures the load: the
			// fastest and the median run say more about the sandbox.
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := proc.Run(context.Background(), spec)
				took = append(took, time.Since(start))
				if err != nil || !res.Exit.Success() {
					b.Fatal(res, err)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[0].Microseconds())/1000, "min-ms")
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
		})
	}
}
