package main

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

// BenchmarkSandboxedCommand is what the sandbox adds to a command when
// the helper is a binary that links all of shiro (this test binary does,
// as shiro does, so every package initialiser runs in the helper too):
// compare "workspace-write" and "off" with "direct". internal/sandbox's
// BenchmarkCommand and BenchmarkPlanParts break the sandbox's own work
// down.
func BenchmarkSandboxedCommand(b *testing.B) {
	if ok, why := sandbox.Available(); !ok {
		b.Skip(why)
	}
	ws := b.TempDir()
	home, _ := os.UserHomeDir()
	launcher := func(mode sandbox.Mode) proc.Launcher {
		sb, err := sandbox.New(sandbox.Policy{Mode: mode, Workspace: ws, Home: home, State: filepath.Join(home, ".shiro-neko")})
		if err != nil {
			b.Fatal(err)
		}
		return sb
	}
	for _, c := range []struct {
		name     string
		launcher proc.Launcher
	}{
		{"direct", nil},
		{"off (supervised only)", launcher(sandbox.Off)},
		{"workspace-write", launcher(sandbox.WorkspaceWrite)},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := proc.Spec{Argv: []string{"/bin/true"}, Dir: ws, NewSession: true, DieWithParent: true,
				Stdout: proc.Stream(func([]byte) {}), Stderr: proc.SameAsStdout{}, Launcher: c.launcher}
			if res, err := proc.Run(context.Background(), spec); err != nil || !res.Exit.Success() {
				b.Fatal(res, err) // the first command also runs the probe
			}
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
