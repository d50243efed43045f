package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// BenchmarkWriteFile compares the jail-safe atomic write (through the
// workspace root, the file's directory opened as a root of its own) with
// the write by resolved path it replaces. Both check the path with
// Resolve first, as the tools do, and both sync the file, which is most of
// the cost on a real disk.
func BenchmarkWriteFile(b *testing.B) {
	data := make([]byte, 4096)
	b.Run("root", func(b *testing.B) {
		env := wstest.Env(b, map[string]string{"d/f.txt": ""})
		for b.Loop() {
			abs, err := env.Resolve("d/f.txt")
			if err != nil {
				b.Fatal(err)
			}
			if err := env.WriteFile(env.Rel(abs), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("path", func(b *testing.B) {
		env := wstest.Env(b, map[string]string{"d/f.txt": ""})
		for b.Loop() {
			abs, err := env.Resolve("d/f.txt")
			if err != nil {
				b.Fatal(err)
			}
			if err := fsutil.WriteAtomic(abs, data, 0o644, fsutil.Options{KeepMode: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadFile compares reading through the workspace root with a
// plain read of the resolved path (both after Resolve, as the tools do).
func BenchmarkReadFile(b *testing.B) {
	env := wstest.Env(b, map[string]string{"d/e/f.txt": string(make([]byte, 16<<10))})
	b.Run("root", func(b *testing.B) {
		for b.Loop() {
			abs, err := env.Resolve("d/e/f.txt")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := env.ReadFile(env.Rel(abs)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("path", func(b *testing.B) {
		for b.Loop() {
			abs, err := env.Resolve("d/e/f.txt")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := os.ReadFile(filepath.Clean(abs)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
