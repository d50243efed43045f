package trust_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/trust"
)

func TestApproveLookupRevoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "trust.json")
	s := trust.New(path, "project config")
	root := t.TempDir()
	d := trust.Digest([]byte(`{"plugins":["format"]}`))
	if ok, err := s.Approved(root, "x", d); ok || err != nil {
		t.Fatalf("approved before approval: %v %v", ok, err)
	}
	if err := s.Approve(root, "x", d, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	// Another process's view: a store of its own on the same file.
	other := trust.New(path, "project config")
	if ok, err := other.Approved(root, "x", d); !ok || err != nil {
		t.Fatalf("approval not on disk: %v %v", ok, err)
	}
	if ok, _ := other.Approved(root, "x", trust.Digest([]byte(`{"plugins":["format","no-main-commit"]}`))); ok {
		t.Fatal("a changed content counts as approved")
	}
	if ok, _ := other.Approved(t.TempDir(), "x", d); ok {
		t.Fatal("an approval counts in another project")
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("store file: %v %v", info, err)
	}
	if had, err := s.Revoke(root, "x"); !had || err != nil {
		t.Fatalf("revoke: %v %v", had, err)
	}
	if ok, _ := other.Approved(root, "x", d); ok {
		t.Fatal("approved after revoke")
	}
}

func TestBadStoresAreErrors(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"not json":      `{`,
		"unknown field": `{"version":1,"projects":{},"extra":1}`,
		"bad digest":    `{"version":1,"projects":{"` + root + `":{"x":{"digest":"abc","approvedAt":"2026-01-01T00:00:00Z"}}}}`,
		"relative root": `{"version":1,"projects":{"rel":{}}}`,
		"wrong version": `{"version":2,"projects":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trust.json")
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			ok, err := trust.New(path, "project config").Approved(root, "x", strings.Repeat("a", 64))
			if ok || err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v, %v", ok, err)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"projects":{}}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := trust.New(path, "project config").Approved(root, "x", strings.Repeat("a", 64)); err == nil {
		t.Fatal("a store others can write was believed")
	}
	if err := trust.New(path, "p").Approve("rel", "x", strings.Repeat("a", 64), time.Now()); err == nil {
		t.Fatal("a relative project folder was accepted")
	}
}

// A file the store wrote before it shared its implementation with hooks
// still loads, and a change keeps that shape on disk.
func TestAnOldApprovalsFileStillLoads(t *testing.T) {
	root := t.TempDir()
	d := strings.Repeat("0f", 32)
	path := filepath.Join(t.TempDir(), "config-trust.json")
	old := `{
  "version": 1,
  "projects": {
    "` + root + `": {
      ".shiro/config.json": {
        "digest": "` + d + `",
        "approvedAt": "2026-11-30T09:00:00Z"
      }
    }
  }
}
`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s := trust.New(path, "project config")
	if a, ok, err := s.Lookup(root, ".shiro/config.json"); err != nil || !ok || a.Digest != d || !a.ApprovedAt.Equal(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("Lookup = %+v %v %v", a, ok, err)
	}
	if err := s.Approve(root, "server", strings.Repeat("a", 64), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk struct {
		Version  int                                  `json:"version"`
		Projects map[string]map[string]trust.Approval `json:"projects"`
	}
	if err := json.Unmarshal(data, &onDisk); err != nil || onDisk.Version != 1 || len(onDisk.Projects[root]) != 2 || onDisk.Projects[root][".shiro/config.json"].Digest != d {
		t.Fatalf("on disk after approving: %v\n%s", err, data)
	}
}
