package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// A refused write outside the writable folders is reported as data, and a
// widened copy lets the same command through, for one call (WithLauncher)
// or for every later command (Switch.Set), while the original stays as it
// was.
func TestARefusedWriteIsNamedAndAWidenedSandboxAllowsIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	target := filepath.Join(f.outside, "cache", "x")
	script := fmt.Sprintf(`mkdir -p %q && echo ok > %q`, filepath.Dir(target), target)
	sw := sandbox.NewSwitch(sb)
	res, out := runIn(t, sw, f.ws, script)
	if res.Exit.Success() {
		t.Fatalf("writing outside succeeded:\n%s", out)
	}
	r := res.Refusal
	if r == nil || r.Network || r.Path != f.outside {
		t.Fatalf("Refusal = %+v; output:\n%s", r, out)
	}
	assertMissing(t, target)

	wide, err := sb.Widened(*r)
	if err != nil {
		t.Fatal(err)
	}
	ctx := proc.WithLauncher(t.Context(), sw, wide)
	res, out = runWith(t, ctx, sw, f.ws, script)
	if !res.Exit.Success() || res.Refusal != nil {
		t.Fatalf("widened once: %v %+v\n%s", res.Exit, res.Refusal, out)
	}
	assertFile(t, target, "ok\n")

	// Without the context the session's sandbox still refuses.
	other := filepath.Join(f.outside, "cache", "y")
	res, out = runIn(t, sw, f.ws, fmt.Sprintf(`echo no > %q`, other))
	if res.Exit.Success() {
		t.Fatalf("the once grant leaked to another command:\n%s", out)
	}
	sw.Set(wide)
	res, out = runIn(t, sw, f.ws, fmt.Sprintf(`echo yes > %q`, other))
	if !res.Exit.Success() {
		t.Fatalf("after Set, the write is still refused:\n%s", out)
	}
	assertFile(t, other, "yes\n")
	// Secrets stay secret in the wider sandbox.
	res, _ = runIn(t, sw, f.ws, fmt.Sprintf(`cat %q`, filepath.Join(f.home, ".ssh", "id_ed25519")))
	if res.Exit.Success() {
		t.Fatal("a widened sandbox let a secret be read")
	}
}

func TestARefusedConnectionIsTheNetwork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res, out := f.run(t, `exec 3<>/dev/tcp/127.0.0.1/9`)
	if res.Exit.Success() {
		t.Fatalf("connecting succeeded:\n%s", out)
	}
	if res.Refusal == nil || !res.Refusal.Network {
		t.Fatalf("Refusal = %+v; output:\n%s", res.Refusal, out)
	}
}

// What a wider sandbox would not let through is not offered: a secret,
// a protected path, a failure of the command's own.
func TestWhatWideningCannotHelpIsNotOffered(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, script := range []string{
		fmt.Sprintf(`echo x > %q`, filepath.Join(f.home, ".ssh", "new")),
		`echo x >> .git/config`,
		`echo 'permission denied' >&2; exit 1`,
		`exit 3`,
	} {
		res, out := f.run(t, script)
		if res.Refusal != nil {
			t.Errorf("%s: Refusal = %+v\n%s", script, res.Refusal, out)
		}
	}
	if os.Getuid() != 0 {
		res, out := f.run(t, `echo x > /etc/shiro-test-not-yours`)
		if res.Refusal != nil {
			t.Errorf("a path this user cannot write either was offered: %+v\n%s", res.Refusal, out)
		}
	}
}

func runWith(t *testing.T, ctx context.Context, launcher proc.Launcher, dir, script string) (proc.Result, string) {
	t.Helper()
	out := &strings.Builder{}
	res, err := proc.Run(ctx, proc.Spec{
		Argv: []string{"bash", "--norc", "-c", script}, Dir: dir,
		Stdout: proc.Stream(func(p []byte) { out.Write(p) }), Stderr: proc.SameAsStdout{},
		NewSession: true, DieWithParent: true, Launcher: launcher,
	})
	if err != nil {
		t.Fatalf("run %q: %v", script, err)
	}
	return res, out.String()
}
