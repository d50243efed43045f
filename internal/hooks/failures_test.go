//go:build unix

package hooks

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every way a pre_tool hook can misbehave blocks the call: a guard that
// fails open is no guard.
func TestMisbehavingHooksBlock(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		script string
		want   []string
	}{
		{"garbage", `echo 'sure, go ahead'`, []string{`hook "guard" printed invalid output`}},
		{"empty", `exit 0`, []string{`hook "guard" printed nothing`, `{"allow":true}`}},
		{"white space only", `printf '\n \n'`, []string{"printed nothing"}},
		{"non-zero exit", `echo 'boom: the linter is missing' >&2; echo '{"allow":true}'; exit 3`,
			[]string{"exited with status 3", "boom: the linter is missing"}},
		{"crash", `echo 'about to crash' >&2; kill -SEGV $$`, []string{"killed by signal SIGSEGV", "about to crash"}},
		{"trailing data", `echo '{"allow":true} {"allow":false}'`, []string{"more after the JSON value"}},
		{"trailing garbage", `echo '{"allow":true}x'`, []string{"invalid output"}},
		{"duplicate key", `echo '{"allow":false,"allow":true}'`, []string{`duplicate key "allow"`}},
		{"nested duplicate key", `echo '{"allow":true,"input":{"command":"ls","command":"rm -rf /"}}'`,
			[]string{`duplicate key "command" in input`}},
		{"missing allow", `echo '{"reason":"fine"}'`, []string{`"allow" is missing`}},
		{"allow as string", `echo '{"allow":"true"}'`, []string{`"allow" must be true or false, got a string`}},
		{"unknown key", `echo '{"allow":true,"Allow":false}'`, []string{`unknown key "Allow"`}},
		{"array", `echo '[{"allow":true}]'`, []string{"expected a JSON object, got an array"}},
		{"input not an object", `echo '{"allow":true,"input":"ls"}'`, []string{`"input" must be a JSON object`}},
		{"oversized", `yes '{"allow":true}' | head -c 2000000`, []string{"printed more than 1 MiB"}},
		{"escape sequences are defused", `printf '\033[2Jwiped' >&2; exit 1`, []string{"exited with status 1: \ufffd[2Jwiped"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.hook("guard", KindPreTool, []string{"bash"}, c.script)
			res := preBash(f.approved("guard"), "ls")
			wantBlocked(t, res, "guard", c.want...)
		})
	}
}

func TestLongStderrIsQuotedFromTheEnd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `yes 'noise' | head -c 100000 >&2; echo 'the real error' >&2; exit 1`)
	res := preBash(f.approved("guard"), "ls")

	wantBlocked(t, res, "guard", "the real error")
	if quoted := res.Reason[strings.Index(res.Reason, ": ")+2:]; len([]rune(quoted)) > stderrShown+1 {
		t.Errorf("quoted %d characters of stderr, want at most %d", len([]rune(quoted)), stderrShown)
	}
}

// A child that leaves the process group cannot be killed with it, but it
// cannot hold the agent either: its pipes are closed under it, so the
// call comes back, blocked for the timeout, while the child still runs.
func TestChildEscapingTheGroupCannotHoldTheAgent(t *testing.T) {
	t.Parallel()
	res, _, child := runHangingHook(t, "setsid sleep 1000")
	t.Cleanup(func() { _ = syscall.Kill(-child, syscall.SIGKILL) }) // it leads its own group

	wantBlocked(t, res, "guard", "did not finish within")
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("the escaped child %d is gone (%v), so it proves nothing about holding the agent", child, err)
	}
}

// runHangingHook runs a pre_tool hook that starts child in the background,
// then hangs past its timeout (one second). It returns the result, and the
// pids of the hook and of the child as the hook reported them.
func runHangingHook(t *testing.T, child string) (res Result, hook, kid int) {
	f := newFixture(t)
	pidFile := f.evidence("pids")
	f.hook("guard", KindPreTool, []string{"*"}, child+" &\necho $$ $! > "+pidFile+"\nsleep 1000")
	r := f.approved("guard")
	r.opts.DefaultTimeout = time.Second

	res = preBash(r, "ls")
	if _, err := fmt.Sscan(f.read(pidFile), &hook, &kid); err != nil {
		t.Fatalf("the hook's pid file: %v", err)
	}
	return res, hook, kid
}

// The manifest's timeout, approved with the hook, replaces the default:
// the hook is killed at the manifest's second, not the default's hour.
func TestManifestTimeoutOverridesTheDefault(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rawHook(f.hooksDir, "slow", `{"name":"slow","hook":"pre_tool","tools":["*"],"timeout":1}`, "#!/bin/sh\nsleep 1000\n")
	r := f.approved("slow")
	r.opts.DefaultTimeout = time.Hour

	wantBlocked(t, preBash(r, "ls"), "slow", "did not finish within 1s and was killed")
}

// An endless writer is killed at the output cap: with an hour to run, it
// is the cap, not the timeout, that ends it.
func TestOversizedOutputIsCutShort(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `yes 'x'; sleep 1000`)
	r := f.approved("guard")
	r.opts.DefaultTimeout = time.Hour

	wantBlocked(t, preBash(r, "ls"), "guard", "printed more than 1 MiB and was killed")
}
