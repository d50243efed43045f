package lsp

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixture copies testdata/name into a fresh folder and returns it.
func fixture(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// needServer skips unless the named built-in server is on PATH, and
// returns the manager for it in root.
func needServer(t testing.TB, name, root string) *Manager {
	t.Helper()
	specs, err := Specs(nil)
	if err != nil {
		t.Fatal(err)
	}
	var only []Spec
	for _, s := range specs {
		if s.Name == name {
			only = append(only, s)
		}
	}
	avail := Detect(root, only, LookPath)
	if len(avail) == 0 {
		t.Skipf("%s is not installed (on PATH); .ci/run installs it", name)
	}
	m := New(Options{
		Root: root, Servers: avail, Environ: os.Environ,
		// Generous: a first start on a loaded machine is slow, and these
		// bound a hung server, not the test's pace.
		StartTimeout: 10 * time.Minute, RequestTimeout: 5 * time.Minute, DiagnosticsWait: 5 * time.Minute,
	})
	t.Cleanup(m.Close)
	return m
}

// write replaces a file of root, as an edit tool would.
func write(t *testing.T, root, rel, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// change runs one edit through the manager: baseline, change, report.
func change(t *testing.T, m *Manager, root, rel, text string) string {
	t.Helper()
	ctx := context.Background()
	base := m.Before(ctx, []string{rel})
	write(t, root, rel, text)
	return m.After(ctx, base)
}
