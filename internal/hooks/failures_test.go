//go:build unix

package hooks

import (
	"strconv"
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
// cannot hold the agent either: its pipes are closed under it.
func TestChildEscapingTheGroupCannotHoldTheAgent(t *testing.T) {
	t.Parallel()
	res, elapsed, pid, err := runHangingHook(t, "setsid sleep 1000")
	if err == nil {
		t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }) // it leads its own group
	}

	wantBlocked(t, res, "guard", "did not finish within")
	if elapsed > hangTimeout+waitDelay+3*time.Second {
		t.Errorf("took %v; the escaped child held the agent", elapsed)
	}
}

// hangTimeout is the timeout runHangingHook gives its hook.
const hangTimeout = time.Second

// runHangingHook runs a pre_tool hook that starts child in the background,
// then hangs past its timeout (hangTimeout). It returns the result, how
// long the call took and the child's pid as the hook reported it.
func runHangingHook(t *testing.T, child string) (PreToolResult, time.Duration, int, error) {
	f := newFixture(t)
	pidFile := f.evidence("child.pid")
	f.hook("guard", KindPreTool, []string{"*"}, child+" &\necho $! > "+pidFile+"\nsleep 1000")
	r := f.approved("guard")
	r.opts.DefaultTimeout = hangTimeout

	start := time.Now()
	res := preBash(r, "ls")
	elapsed := time.Since(start)
	pid, err := strconv.Atoi(strings.TrimSpace(f.read(pidFile)))
	return res, elapsed, pid, err
}

// The manifest's timeout, approved with the hook, replaces the default.
func TestManifestTimeoutOverridesTheDefault(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rawHook(f.hooksDir, "slow", `{"name":"slow","hook":"pre_tool","tools":["*"],"timeout":1}`, "#!/bin/sh\nsleep 1000\n")
	r := f.approved("slow")
	r.opts.DefaultTimeout = time.Hour

	start := time.Now()
	res := preBash(r, "ls")

	wantBlocked(t, res, "slow", "did not finish within 1s")
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Errorf("took %v with a 1s manifest timeout", elapsed)
	}
}

func TestOversizedOutputIsCutShort(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `yes 'x'; sleep 1000`)
	start := time.Now()
	res := preBash(f.approved("guard"), "ls")

	wantBlocked(t, res, "guard", "printed more than 1 MiB and was killed")
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v; an endless writer must be killed at the cap", elapsed)
	}
}
