package plugin_test

import (
	"context"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
)

// BenchmarkDefaultChainBash is the cost the default plugins add to a
// typical bash call before it runs.
func BenchmarkDefaultChainBash(b *testing.B) {
	enabled, _ := plugin.Resolve(config.DefaultPlugins(), plugin.BuiltinDeps{StateDir: b.TempDir()})
	host := plugin.NewHost(enabled...)
	c := bashCall(`go test ./... 2>&1 | tail -n 20 && git status --short`)
	c.Cwd = b.TempDir()
	ctx := context.Background()
	if blk := host.Check(ctx, c); blk != nil {
		b.Fatalf("blocked: %v", blk.Reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		host.Check(ctx, c)
	}
}

// BenchmarkDefaultChainWrite is the same for a write_file call.
func BenchmarkDefaultChainWrite(b *testing.B) {
	enabled, _ := plugin.Resolve(config.DefaultPlugins(), plugin.BuiltinDeps{StateDir: b.TempDir()})
	host := plugin.NewHost(enabled...)
	c := writeCall("internal/plugin/builtin.go")
	c.Cwd = b.TempDir()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		host.Check(ctx, c)
	}
}
