package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectSandboxGrantsAreKeptByProject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "sandbox-grants.json")
	if g, err := ProjectSandboxGrant(path, "/p"); err != nil || len(g.Writable) != 0 || g.Network {
		t.Fatalf("no file: %+v %v", g, err)
	}
	for _, add := range []SandboxGrant{{Writable: []string{"/h/.cache/go-build"}}, {Network: true}, {Writable: []string{"/h/.cache/go-build", "/h/.npm"}}} {
		if err := AddProjectSandboxGrant(path, "/p", add); err != nil {
			t.Fatal(err)
		}
	}
	g, err := ProjectSandboxGrant(path, "/p")
	if err != nil || !g.Network || strings.Join(g.Writable, ",") != "/h/.cache/go-build,/h/.npm" {
		t.Fatalf("grant = %+v %v", g, err)
	}
	if other, _ := ProjectSandboxGrant(path, "/other"); other.Network || len(other.Writable) != 0 {
		t.Fatalf("another project got %+v", other)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi, err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ProjectSandboxGrant(path, "/p"); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "remove the file") {
		t.Fatalf("bad file: %v", err)
	}
}
