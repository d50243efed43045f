//go:build unix

package hooks

import (
	"os"
	"path/filepath"
	"testing"
)

// The example in README.md works as documented.
func TestExampleHook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	src := filepath.Join("testdata", "example-hooks", "no-force-push")
	dst := filepath.Join(f.hooksDir, "no-force-push")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	r := f.approved("no-force-push")

	wantBlocked(t, preBash(r, "git push --force origin main"), "no-force-push",
		`hook "no-force-push" refused the call: force pushes are not allowed in this project`)
	wantAllowed(t, preBash(r, "git push origin main"))
}
