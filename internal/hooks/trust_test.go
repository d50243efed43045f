//go:build unix

package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// trustFile is hooks.json on disk, keyed by canonical hook folder path.
type trustFile struct {
	Version int               `json:"version"`
	Hooks   map[string]Record `json:"hooks"`
}

// readTrustOnDisk checks the bytes on disk: private mode, valid strict
// JSON, no temporary files left beside it.
func readTrustOnDisk(t *testing.T, path string) trustFile {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %04o, want 0600", path, info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := strictjson.Check(data); err != nil {
		t.Fatalf("hooks.json is not strict JSON: %v\n%s", err, data)
	}
	var tf trustFile
	if err := json.Unmarshal(data, &tf); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".shiro-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	return tf
}

func TestTrustFileOnDiskAfterApproveAndRevoke(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("guard", KindPreTool, []string{"bash"}, `echo '{"allow":true}'`)
	f.hook("other", KindAfterTurn, []string{"*"}, `true`)
	r := f.approved("guard", "other")

	tf := readTrustOnDisk(t, f.trustPath)
	rec, ok := tf.Hooks[dir]
	if tf.Version != 1 || len(tf.Hooks) != 2 || !ok {
		t.Fatalf("hooks.json = %+v", tf)
	}
	if rec.Name != "guard" || rec.Digest != r.Status()[0].Digest || rec.ApprovedAt.IsZero() ||
		rec.Manifest.Hook != KindPreTool || rec.Manifest.Tools[0] != "bash" {
		t.Errorf("record = %+v", rec)
	}

	if err := r.Revoke("guard"); err != nil {
		t.Fatal(err)
	}
	tf = readTrustOnDisk(t, f.trustPath)
	if _, ok := tf.Hooks[dir]; ok || len(tf.Hooks) != 1 {
		t.Errorf("after revoke hooks.json = %+v", tf)
	}
	// The revoked hook's private copy is gone as well.
	if f.exists(filepath.Join(f.cacheDir, rec.Digest)) {
		t.Error("the revoked hook's copy is still cached")
	}
}

// `shiro hooks approve` in another process is seen by a running session.
func TestApprovalFromAnotherProcessIsPickedUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	session := f.runner()
	wantBlocked(t, preBash(session, "ls"), "guard", "is not approved")

	cli := f.runner()
	if err := cli.Approve("guard"); err != nil {
		t.Fatal(err)
	}

	wantAllowed(t, preBash(session, "ls"))
}

func TestTrustFileWritableByOthersIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `true`)
	f.approved("guard")
	if err := os.Chmod(f.trustPath, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := OpenTrust(f.trustPath)
	if err == nil || !strings.Contains(err.Error(), "can be changed by other users") || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("OpenTrust = %v", err)
	}
}

func TestCorruptTrustFileIsAnErrorNamingTheField(t *testing.T) {
	t.Parallel()
	digest := strings.Repeat("ab", 32)
	good := `{"name":"guard","digest":"` + digest + `","approvedAt":"2026-09-09T10:00:00Z","manifest":{"name":"guard","hook":"pre_tool","tools":["*"]}}`
	cases := []struct{ name, body, want string }{
		{"not json", `{`, "is not a valid JSON object"},
		{"unknown top", `{"version":1,"hooks":{},"extra":1}`, `extra: unknown field`},
		{"version", `{"version":2,"hooks":{}}`, "version: must be 1"},
		{"relative key", `{"version":1,"hooks":{"rel/path":` + good + `}}`, "absolute folder path"},
		{"bad digest", `{"version":1,"hooks":{"/p":` + strings.Replace(good, digest, "ABC", 1) + `}}`, `"digest" must be 64 lower-case hex digits`},
		{"bad manifest", `{"version":1,"hooks":{"/p":` + strings.Replace(good, `"pre_tool"`, `"pre"`, 1) + `}}`, `"manifest": field "hook"`},
		{"dup key", `{"version":1,"hooks":{"/p":` + good + `,"/p":` + good + `}}`, `duplicate key "/p"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "hooks.json")
			if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := OpenTrust(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "fix the file or delete it") {
				t.Errorf("OpenTrust = %v, want …%s…", err, c.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"hooks":{"/p":`+good+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	trust, err := OpenTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec, ok, err := trust.Lookup("/p"); err != nil || !ok || rec.Digest != digest {
		t.Errorf("Lookup = %+v, %v, %v", rec, ok, err)
	}
}

// A trust file that turns bad mid-session blocks rather than approving
// nothing silently or everything.
func TestTrustFileBrokenMidSessionBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	r := f.approved("guard")
	if err := os.WriteFile(f.trustPath, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantBlocked(t, preBash(r, "ls"), "guard", "cannot be checked against the approvals")
}
