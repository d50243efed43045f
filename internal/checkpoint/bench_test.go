package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSnapshotUnchanged is the cost of a checkpoint of a 10,000-file
// workspace where nothing changed since the last one (the budget is
// 150 ms).
func BenchmarkSnapshotUnchanged(b *testing.B) {
	root := b.TempDir()
	for i := range 10_000 {
		p := filepath.Join(root, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("s%d", i%7), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package p\n\nconst n = %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: filepath.Join(b.TempDir(), "cp"), Root: root})
	if err != nil {
		b.Fatal(err)
	}
	first, err := s.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if snap.Tree != first.Tree {
			b.Fatalf("tree changed with nothing changed: %s then %s", first.Tree, snap.Tree)
		}
	}
}
