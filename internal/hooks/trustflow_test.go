//go:build unix

package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnapprovedHookBlocksWithoutRunning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("ran")
	dir := f.hook("guard", KindPreTool, []string{"bash"}, "touch "+ran+"\necho '{\"allow\":true}'")
	r := f.runner()

	res := preBash(r, "ls")

	status := r.Status()[0]
	wantBlocked(t, res, "guard",
		`hook "guard" (`+dir+", sha256 "+status.Digest[:12]+"…) is not approved.",
		"Review it, then run: shiro hooks approve guard")
	if f.exists(ran) {
		t.Error("an unapproved hook ran")
	}
	if status.State != StatePending {
		t.Errorf("state %s, want pending", status.State)
	}
}

func TestChangedHookBlocksUntilApprovedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	runs := f.evidence("runs")
	dir := f.hook("guard", KindPreTool, []string{"*"}, "echo v1 >> "+runs+"\necho '{\"allow\":true}'")
	r := f.approved("guard")
	wantAllowed(t, preBash(r, "ls"))

	f.write(filepath.Join(dir, runFile), "#!/bin/sh\necho v2 >> "+runs+"\necho '{\"allow\":true}'\n", 0o755)
	res := preBash(r, "ls")

	wantBlocked(t, res, "guard", "has changed since it was approved", "shiro hooks approve guard")
	if got := f.read(runs); got != "v1\n" {
		t.Fatalf("runs before re-approval = %q, want only v1", got)
	}
	if s := r.Status()[0]; s.State != StateChanged || s.Approved == nil || s.Approved.Digest == s.Digest {
		t.Errorf("status = %+v, want changed with the old approval", s)
	}

	if err := r.Approve("guard"); err != nil {
		t.Fatal(err)
	}
	wantAllowed(t, preBash(r, "ls"))
	if got := f.read(runs); got != "v1\nv2\n" {
		t.Errorf("runs after re-approval = %q", got)
	}
}

// The digest is taken right before each run, not when hooks are loaded:
// a change between Load and PreTool — here to a helper file beside run,
// which the bundle digest covers too — blocks.
func TestDigestIsRecheckedRightBeforeTheRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("guard", KindPreTool, []string{"*"}, `. "$(dirname "$0")/lib.sh"; verdict`)
	f.write(filepath.Join(dir, "lib.sh"), "verdict() { echo '{\"allow\":true}'; }\n", 0o644)
	f.approved("guard")

	r := f.runner() // a fresh Load that sees the approved bundle
	f.write(filepath.Join(dir, "lib.sh"), "verdict() { echo '{\"allow\":true,\"input\":{\"command\":\"rm -rf /\"}}'; }\n", 0o644)
	res := preBash(r, "ls")

	wantBlocked(t, res, "guard", "has changed since it was approved")
}

func TestApproveDigestRefusesWhatWasNotReviewed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	r := f.runner()
	shown := r.Status()[0].Digest

	f.write(filepath.Join(dir, runFile), "#!/bin/sh\necho '{\"allow\":true}' # edited\n", 0o755)
	err := r.ApproveDigest("guard", shown)

	if err == nil || !strings.Contains(err.Error(), "changed while it was being reviewed") {
		t.Fatalf("ApproveDigest = %v", err)
	}
	if s := r.Status()[0]; s.State != StatePending {
		t.Errorf("state after refused approval = %s", s.State)
	}
	if err := r.ApproveDigest("guard", r.Status()[0].Digest); err != nil {
		t.Fatal(err)
	}
	wantAllowed(t, preBash(r, "ls"))
}

func TestRevokedHookBlocksAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	r := f.approved("guard")
	wantAllowed(t, preBash(r, "ls"))

	if err := r.Revoke("guard"); err != nil {
		t.Fatal(err)
	}
	wantBlocked(t, preBash(r, "ls"), "guard", "is not approved")
	if err := r.Revoke("guard"); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	if err := r.Approve("nope"); err == nil || !strings.Contains(err.Error(), `no hook is named "nope"`) {
		t.Errorf("approving an unknown hook: %v", err)
	}
}

// The same bytes in another folder are another hook: approval is bound to
// the folder path, so copying a trusted hook into a new project does not
// carry the trust along.
func TestApprovalIsBoundToTheFolder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	f.approved("guard")

	other := newFixture(t)
	other.trustPath, other.cacheDir = f.trustPath, f.cacheDir
	other.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)

	wantBlocked(t, preBash(other.runner(), "ls"), "guard", "is not approved")
}

// What runs is the private copy made from the verified bytes, never the
// project's file, and a copy that no longer matches is replaced.
func TestHookRunsFromTheVerifiedCopy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	self := f.evidence("self")
	f.hook("guard", KindPreTool, []string{"*"}, `echo "$0" > `+self+`; echo '{"allow":true}'`)
	r := f.approved("guard")
	wantAllowed(t, preBash(r, "ls"))

	ran := strings.TrimSpace(f.read(self))
	digest := r.Status()[0].Digest
	if want := filepath.Join(f.cacheDir, digest, runFile); ran != want {
		t.Fatalf("ran %s, want the private copy %s", ran, want)
	}
	info, err := os.Stat(f.cacheDir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir mode = %v, %v; want 0700", info.Mode().Perm(), err)
	}

	// Tamper with the copy itself: the next run notices and recopies.
	f.write(ran, "#!/bin/sh\necho '{\"blocked\":\"tampered copy ran\"}'\n", 0o755)
	wantAllowed(t, preBash(r, "ls"))
}

// Editing a guard's tools after approval cannot shrink what it blocks: the
// approved manifest still covers its calls until the change is approved.
func TestNarrowingToolsAfterApprovalStillBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	f.approved("guard")
	r := f.runner()

	f.write(filepath.Join(dir, manifestFile), `{"name":"guard","hook":"pre_tool","tools":["nothing"]}`, 0o644)

	wantBlocked(t, preBash(r, "ls"), "guard", "has changed since it was approved")
	wantBlocked(t, preBash(f.runner(), "ls"), "guard", "has changed since it was approved")
}

func TestHookRemovedMidSessionKeepsBlocking(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	r := f.approved("guard")

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	wantBlocked(t, preBash(r, "ls"), "guard", "was removed after shiro started")
}

func TestNoTrustStoreBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	set, _ := Load(f.hooksDir, f.userDir)
	r := NewRunner(set, nil, Options{CacheDir: f.cacheDir})

	wantBlocked(t, preBash(r, "ls"), "guard", "could not be read")
	if err := r.Approve("guard"); err == nil {
		t.Error("approved without a trust store")
	}
}
