package plugin_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// BenchmarkGateBash is what the gate spends on a typical bash call before
// it runs: the default plugin chain, then the permission rules (with a
// deny rule, so wrapped commands are checked too). "shared" analyses the
// line once and hands the analysis to both layers; "separate" lets each
// layer analyse it on its own.
func BenchmarkGateBash(b *testing.B) {
	enabled, _ := plugin.Resolve(config.DefaultPlugins(), plugin.BuiltinDeps{StateDir: b.TempDir()})
	host := plugin.NewHost(enabled...)
	rules, err := permission.Parse(json.RawMessage(`{"bash": {"*": "ask", "git *": "allow", "go *": "allow", "tail *": "allow", "rm *": "deny"}}`))
	if err != nil {
		b.Fatal(err)
	}
	line := `go test ./... 2>&1 | tail -n 20 && git status --short`
	cwd := b.TempDir()
	ctx := context.Background()
	run := func(b *testing.B, share bool) {
		b.ReportAllocs()
		for b.Loop() {
			c := bashCall(line)
			c.Cwd = cwd
			q := permission.Query{Tool: "bash", IsShell: true, Subjects: c.Commands, Default: permission.Ask}
			if share {
				c.Shell = []*shellguard.Analysis{shellguard.Analyze(line)}
				q.Shell = c.Shell
			}
			if blk := host.Check(ctx, c); blk != nil {
				b.Fatalf("blocked: %v", blk.Reason)
			}
			if got := rules.Check(q, nil).Decision; got != permission.Allow {
				b.Fatalf("decision %s", got)
			}
		}
	}
	b.Run("shared", func(b *testing.B) { run(b, true) })
	b.Run("separate", func(b *testing.B) { run(b, false) })
}
