package search

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// What the sandbox adds to a grep through rg: a small workspace, where
// starting rg is most of the cost, searched with rg started bare (no
// Launcher) and through a workspace-write sandbox with its helper
// waiting, as a session runs it.
//
// Run: go test -run '^$' -bench GrepSandboxOverhead ./internal/tools/search/
func BenchmarkGrepSandboxOverhead(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("pkg%d/file%d.go", i%5, i)] = "package p\n\nfunc main() {}\n// needle\n"
	}
	env := wstest.Env(b, files)
	env.Ripgrep = rg
	q, err := newGrepQuery(env, &grepInput{Pattern: "needle"})
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, ready func()) {
		for b.Loop() {
			col, err := runGrep(context.Background(), env, q)
			if err != nil || col.total != 50 {
				b.Fatalf("%v, %d hits", err, col.total)
			}
			b.StopTimer()
			ready()
			b.StartTimer()
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, func() {}) })
	b.Run("workspace-write", func(b *testing.B) {
		if ok, why := sandbox.Available(); !ok {
			b.Skip(why)
		}
		sb, err := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: env.Root, Temp: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer sb.Close()
		env.Launcher = sb
		defer func() { env.Launcher = nil }()
		run(b, sb.Ready)
	})
}
