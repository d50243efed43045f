package sandbox_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// The lean helper is found beside the executable, through a symlink to
// it, and only when it is a program someone may run.
func TestTheLeanHelperIsFoundBesideTheExecutable(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	shiro := filepath.Join(dir, "shiro")
	writeFile(t, shiro, "#!/bin/sh\n", 0o755)
	link := filepath.Join(elsewhere, "shiro")
	if err := os.Symlink(shiro, link); err != nil {
		t.Fatal(err)
	}
	exe := func(path string) func() (string, error) { return func() (string, error) { return path, nil } }
	if got, ok := sandbox.LeanHelperBeside(exe(link)); ok {
		t.Fatalf("found %s where there is none", got)
	}
	lean := filepath.Join(dir, sandbox.HelperProgram)
	writeFile(t, lean, "#!/bin/sh\n", 0o644)
	if got, ok := sandbox.LeanHelperBeside(exe(link)); ok {
		t.Fatalf("found %s, which nobody may execute", got)
	}
	if err := os.Chmod(lean, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := sandbox.LeanHelperBeside(exe(link)); !ok || got != lean {
		t.Fatalf("found %q, %v; want %s (beside the link's target)", got, ok, lean)
	}
}

// A command runs under the first helper program that answers the probe:
// a lean helper when it works, and shiro itself when the lean one is from
// another build (here, a program that answers nothing). Either way the
// command is confined.
func TestCommandsRunUnderTheFirstHelperThatAnswers(t *testing.T) {
	f := newFixture(t)
	// This test binary is a helper too (TestMain runs MaybeRunHelper):
	// a copy of it under the lean helper's name stands for cmd/shiro-sandbox.
	lean := filepath.Join(t.TempDir(), sandbox.HelperProgram)
	copyExecutable(t, lean)
	stale := filepath.Join(t.TempDir(), sandbox.HelperProgram)
	writeFile(t, stale, "#!/bin/sh\nexit 0\n", 0o755)
	script := `tr "\\0" "\\n" </proc/$PPID/cmdline | head -1; cat ` + filepath.Join(f.home, ".ssh", "id_ed25519") + ` || echo refused`
	for _, c := range []struct {
		name     string
		programs []string
		want     string
	}{
		{"lean", []string{lean, "/proc/self/exe"}, lean},
		{"stale lean", []string{stale, "/proc/self/exe"}, "/proc/self/exe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := f.sandbox(t)
			sb.UseHelpers(c.programs...)
			res, out := runIn(t, sb, f.ws, script)
			if !res.Exit.Success() {
				t.Fatalf("exit %v: %s", res.Exit, out)
			}
			// The helper is the command's parent; its argv[0] is the
			// program the launcher started.
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if lines[0] != c.want {
				t.Errorf("the helper ran as %q, want %q", lines[0], c.want)
			}
			if strings.Contains(out, "secret-key-bytes") || !strings.Contains(out, "refused") {
				t.Errorf("the command was not confined:\n%s", out)
			}
		})
	}
}

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// copyExecutable copies this test binary to path.
func copyExecutable(t *testing.T, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// The CPU a command costs, helper and all, with shiro itself as the
// helper and with the lean one (cmd/shiro-sandbox), both built here as a
// person installs them. The command is `true`: what is left is the
// helper's start and work.
func BenchmarkHelperCPU(b *testing.B) {
	if ok, why := sandbox.Available(); !ok {
		b.Skip(why)
	}
	bin := b.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "github.com/shiro-neko/shiro/cmd/shiro", "github.com/shiro-neko/shiro/cmd/shiro-sandbox")
	if out, err := build.CombinedOutput(); err != nil {
		b.Skipf("cannot build the programs: %v\n%s", err, out)
	}
	ws := b.TempDir()
	home, _ := os.UserHomeDir()
	for _, program := range []string{"shiro", sandbox.HelperProgram} {
		b.Run(program, func(b *testing.B) {
			sb, err := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Home: home, State: filepath.Join(home, ".shiro-neko")})
			if err != nil {
				b.Fatal(err)
			}
			sb.UseHelpers(filepath.Join(bin, program))
			b.Cleanup(sb.Close)
			spec := proc.Spec{Argv: []string{"/bin/true"}, Dir: ws, NewSession: true, DieWithParent: true, Launcher: sb}
			if _, err := proc.Run(b.Context(), spec); err != nil { // the probe
				b.Fatal(err)
			}
			before := childCPU()
			for b.Loop() {
				if res, err := proc.Run(b.Context(), spec); err != nil || !res.Exit.Success() {
					b.Fatal(res, err)
				}
			}
			b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// childCPU is the CPU time of the children this process has waited for.
func childCPU() time.Duration {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The lean helper as built from cmd/shiro-sandbox (SHIRO_LEAN_HELPER
// names one built already, as .ci/sandbox-as-user does for the user it
// runs these tests as; otherwise it is built here) confines a command.
func TestTheLeanHelperProgramConfines(t *testing.T) {
	f := newFixture(t)
	lean := os.Getenv("SHIRO_LEAN_HELPER")
	if lean == "" {
		if testing.Short() {
			t.Skip("builds cmd/shiro-sandbox")
		}
		lean = filepath.Join(t.TempDir(), sandbox.HelperProgram)
		out, err := exec.Command("go", "build", "-o", lean, "github.com/shiro-neko/shiro/cmd/shiro-sandbox").CombinedOutput()
		if err != nil {
			t.Skipf("cannot build cmd/shiro-sandbox here (set SHIRO_LEAN_HELPER to one built): %v\n%s", err, out)
		}
	}
	sb := f.sandbox(t)
	sb.UseHelpers(lean)
	res, out := runIn(t, sb, f.ws, `tr "\\0" "\\n" </proc/$PPID/cmdline | head -1; echo new >README.md; cat `+
		filepath.Join(f.home, ".ssh", "id_ed25519")+` || echo refused`)
	if !res.Exit.Success() || !strings.HasPrefix(out, lean+"\n") {
		t.Fatalf("exit %v; want the command run under %s:\n%s", res.Exit, lean, out)
	}
	if strings.Contains(out, "secret-key-bytes") || !strings.Contains(out, "refused") {
		t.Errorf("the command was not confined:\n%s", out)
	}
	if data, err := os.ReadFile(filepath.Join(f.ws, "README.md")); err != nil || string(data) != "new\n" {
		t.Errorf("the workspace was not writable: %q, %v", data, err)
	}
}
