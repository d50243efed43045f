package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/proc/proctest"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// BenchmarkSandboxedCommand is what the sandbox adds to a command when
// the helper is a binary that links all of shiro (this test binary does,
// as shiro does, so every package initialiser runs in the helper too):
// compare "workspace-write" and "off" with "direct". Each command finds
// its helper started ahead (supervise.Pool), as in a session; "no helper
// waiting" starts one for each command, as the first of a session does.
// internal/sandbox's BenchmarkCommand and BenchmarkPlanParts break the
// sandbox's own work down.
func BenchmarkSandboxedCommand(b *testing.B) {
	if ok, why := sandbox.Available(); !ok {
		b.Skip(why)
	}
	ws := b.TempDir()
	home, _ := os.UserHomeDir()
	launcher := func(mode sandbox.Mode) *sandbox.Sandbox {
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
		launcher *sandbox.Sandbox
	}{
		{"direct", nil},
		{"off (supervised only)", launcher(sandbox.Off)},
		{"workspace-write", launcher(sandbox.WorkspaceWrite)},
		{"workspace-write, no helper waiting", closed(launcher(sandbox.WorkspaceWrite))},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := proc.Spec{Argv: []string{"/bin/echo", "started"}, Dir: ws, NewSession: true, DieWithParent: true}
			ready := func() {}
			if c.launcher != nil {
				spec.Launcher, ready = c.launcher, c.launcher.Ready
			}
			proctest.Timing(b, spec, ready)
		})
	}
}
