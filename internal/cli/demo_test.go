package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func testIO(t *testing.T, getenv map[string]string) (IO, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	dir := t.TempDir()
	return IO{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(k string) string {
			if v, ok := getenv[k]; ok {
				return v
			}
			if k == "PATH" || k == "HOME" {
				return os.Getenv(k)
			}
			return ""
		},
		Getwd: func() (string, error) { return dir, nil },
	}, &out, &errb
}

// isolateLoginShell gives the demo's bash (a login shell) an empty HOME,
// so the machine's own login files (a slow or locked pyenv init, say) play
// no part in the test. The Go caches are pinned first, so the `go test`
// the demo runs still finds them.
func isolateLoginShell(t *testing.T) {
	t.Helper()
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Skipf("go env %s: %v", k, err)
		}
		t.Setenv(k, strings.TrimSpace(string(out)))
	}
	t.Setenv("HOME", t.TempDir())
}

// The demo runs a real session from the embedded cassette: it edits the
// bug, runs the tests, has rm -rf refused by the guard and exits 0.
func TestDemoRunsARealSession(t *testing.T) {
	isolateLoginShell(t)
	stdio, out, errb := testIO(t, map[string]string{"TMPDIR": t.TempDir()})
	code := Run(t.Context(), []string{"demo", "--keep"}, stdio)
	if code != 0 {
		t.Fatalf("demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	text := out.String()
	for _, want := range []string{
		"[tool] grep", "[tool] read_file", "[tool] edit_file",
		`Blocked by the guard plugin: refusing "rm -rf build"`,
		"Task list updated: 3/3 done.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	m := regexp.MustCompile(`kept at (\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no kept path in output:\n%s", text)
	}
	work := m[1]
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(work)) })
	src, err := os.ReadFile(filepath.Join(work, "stats.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "for i := 0; i < len(xs); i++ {") {
		t.Fatalf("the bug was not fixed on disk:\n%s", src)
	}
	if _, err := os.Stat(filepath.Join(work, "build", "stats.bin")); err != nil {
		t.Fatalf("the guard should have kept build/: %v", err)
	}
}
