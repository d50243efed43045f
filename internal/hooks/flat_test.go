//go:build unix

package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeFlat writes a hook in the original's flat layout: the executable
// <name> and <name>.json beside it, in the project's hooks folder.
func (f *fixture) writeFlat(name, manifest, script string) string {
	f.t.Helper()
	exe := filepath.Join(f.hooksDir, name)
	f.write(exe+".json", manifest, 0o644)
	f.write(exe, "#!/bin/sh\n"+script+"\n", 0o755)
	return exe
}

// A hook in the original's flat layout loads, waits for approval like a
// folder, then runs from its verified copy and blocks; changing either
// of its two files needs approving again, and a file with no partner is
// still reported as not a hook.
func TestAFlatHookFromTheOriginalLoadsAndRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("ran")
	exe := f.writeFlat("no-rm", `{"name":"no-rm","hook":"pre_tool","tools":["bash"]}`,
		"touch "+ran+"\necho '{\"allow\":false,\"reason\":\"no rm here\"}'")
	f.write(filepath.Join(f.hooksDir, "notes.txt"), "stray\n", 0o644)

	set, problems := Load(f.hooksDir, f.userDir)
	if len(set.Hooks()) != 1 || set.Hooks()[0].Name != "no-rm" || set.Hooks()[0].Kind != KindPreTool {
		t.Fatalf("hooks = %+v, problems = %v", set.Hooks(), problems)
	}
	if len(problems) != 1 || problems[0].Where != filepath.Join(f.hooksDir, "notes.txt") {
		t.Fatalf("problems = %v, want only notes.txt", problems)
	}

	r := f.runner()
	if s := r.Status()[0]; s.State != StatePending {
		t.Fatalf("state %s, want pending", s.State)
	}
	wantBlocked(t, preBash(r, "rm x"), "no-rm", "is not approved")
	if f.exists(ran) {
		t.Fatal("an unapproved flat hook ran")
	}
	if err := r.Approve("no-rm"); err != nil {
		t.Fatal(err)
	}
	wantBlocked(t, preBash(r, "rm x"), "no-rm", "no rm here")
	if !f.exists(ran) {
		t.Fatal("the approved flat hook did not run")
	}

	// The manifest is part of what was approved.
	f.write(exe+".json", `{"name":"no-rm","hook":"pre_tool","tools":["read_file"]}`, 0o644)
	wantBlocked(t, preBash(r, "ls"), "no-rm", "has changed since it was approved")
}

// The original's hooks.json (approvals by the executable's sha256) is
// moved aside on first read, and its approval carries over to the hook
// whose executable it names, and to no other; the file is then in this
// shiro's shape.
func TestTheOriginalsApprovalsCarryOver(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("ran")
	script := "touch " + ran + "\necho '{\"allow\":true}'"
	exe := f.writeFlat("approved", `{"name":"approved","hook":"pre_tool","tools":["bash"]}`, script)
	f.writeFlat("other", `{"name":"other","hook":"pre_tool","tools":["read_file"]}`, "echo '{\"allow\":true}'")
	sum := sha256.Sum256([]byte(f.read(exe)))
	sha := hex.EncodeToString(sum[:])
	original := `{"` + sha + `": {"hash": "` + sha + `", "approvedAt": "2026-09-10T08:00:00.000Z"}}`
	if err := os.MkdirAll(filepath.Dir(f.trustPath), 0o700); err != nil {
		t.Fatal(err)
	}
	f.write(f.trustPath, original, 0o600)

	set, _ := Load(f.hooksDir, f.userDir)
	trust, err := OpenTrust(f.trustPath)
	if err != nil {
		t.Fatalf("the original's hooks.json: %v", err)
	}
	names, err := trust.MigrateOriginal(set)
	if err != nil || len(names) != 1 || names[0] != "approved" {
		t.Fatalf("migrated %v, %v; want [approved]", names, err)
	}
	if got := f.read(f.trustPath + ".original"); got != original {
		t.Fatalf("the original's file was not kept aside: %q", got)
	}
	onDisk := readTrustOnDisk(t, f.trustPath)
	if len(onDisk.Hooks) != 1 || onDisk.Hooks[exe].ApprovedAt.Year() != 2026 {
		t.Fatalf("hooks.json = %+v", onDisk)
	}
	r := NewRunner(set, trust, Options{CacheDir: f.cacheDir, SessionID: "s", ProjectDir: f.project, DefaultTimeout: 10 * time.Second, Validate: requireCommand})
	wantAllowed(t, preBash(r, "ls"))
	if !f.exists(ran) {
		t.Fatal("the carried-over hook did not run")
	}
	for _, s := range r.Status() {
		if s.Name == "other" && s.State != StatePending {
			t.Errorf("other: %s, want pending (the original never approved it)", s.State)
		}
	}
	// Once carried over, a second run carries nothing again.
	if names, err := trust.MigrateOriginal(set); err != nil || len(names) != 0 {
		t.Errorf("second migration: %v, %v", names, err)
	}
}
