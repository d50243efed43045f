package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The overview names the workspace's languages, most files first, with
// what their own tools check, leaves out stray files and non-code, and
// says no counts: adding one more file of a language does not change the
// prompt's bytes, so the cached prefix still hits.
func TestOverviewNamesTheProjectsLanguages(t *testing.T) {
	env := tree(t, "go.mod", "main.go", "cmd/a/a.go", "internal/b/b.go", "internal/b/b_test.go",
		"web/app.ts", "web/view.tsx", "scripts/one.sh", "README.md", "docs/x.md", "docs/y.md", "data.json")
	ov := Overview(t.Context(), env, DefaultOverviewBytes)
	want := "Project language: Go (gofmt, go vet ./..., go test ./...); TypeScript (tsc and the package.json scripts). Follow each one's conventions as the code around you does."
	if !strings.HasSuffix(ov, "\n"+want) {
		t.Fatalf("overview ends:\n%s\nwant the line %q", ov[max(0, len(ov)-300):], want)
	}
	if strings.Contains(ov, "Shell") {
		t.Errorf("one shell script is named as a language:\n%s", ov)
	}
	if err := os.WriteFile(filepath.Join(env.Root, "internal", "b", "c.go"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := Overview(t.Context(), env, DefaultOverviewBytes)
	if line := again[strings.LastIndex(again, "\n")+1:]; line != want {
		t.Errorf("one more Go file changed the line to %q", line)
	}
	if ov := Overview(t.Context(), tree(t, "README.md", "notes.txt"), DefaultOverviewBytes); strings.Contains(ov, "Project language") {
		t.Errorf("a workspace with no code names a language:\n%s", ov)
	}
}
