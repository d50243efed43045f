package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/problem"
)

// writeFile writes content at dir/rel, creating parent directories.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// skillText is a well-formed skill file.
func skillText(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body + "\n"
}

// problemFor returns the problem reported for path, failing if there is none.
func problemFor(t *testing.T, problems []problem.Problem, path string) problem.Problem {
	t.Helper()
	for _, p := range problems {
		if p.Where == path {
			return p
		}
	}
	t.Fatalf("no problem reported for %s; got %v", path, problems)
	return problem.Problem{}
}

func mustContain(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%q does not contain %q", got, want)
	}
}
