//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture is a project with a hooks folder, a user hooks folder and a
// private state folder, all under t.TempDir().
type fixture struct {
	t         testing.TB
	project   string
	hooksDir  string
	userDir   string
	trustPath string
	cacheDir  string
	scratch   string // where hooks leave evidence for the test
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{
		t:         t,
		project:   filepath.Join(root, "project"),
		userDir:   filepath.Join(root, "home", ".shiro-neko", "hooks"),
		trustPath: filepath.Join(root, "home", ".shiro-neko", "hooks.json"),
		cacheDir:  filepath.Join(root, "home", ".shiro-neko", "cache", "hooks"),
		scratch:   filepath.Join(root, "scratch"),
	}
	f.hooksDir = filepath.Join(f.project, ".shiro", "hooks")
	for _, d := range []string{f.hooksDir, f.userDir, f.scratch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// hook writes a project hook: manifest.json from kind and tools, and run
// from script (a #!/bin/sh line is added).
func (f *fixture) hook(name string, kind Kind, tools []string, script string) string {
	f.t.Helper()
	m, err := json.Marshal(Manifest{Name: name, Hook: kind, Tools: tools})
	if err != nil {
		f.t.Fatal(err)
	}
	return f.rawHook(f.hooksDir, name, string(m), "#!/bin/sh\n"+script+"\n")
}

// rawHook writes a hook folder with exactly the given files.
func (f *fixture) rawHook(parent, name, manifest, run string) string {
	f.t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if manifest != "" {
		f.write(filepath.Join(dir, manifestFile), manifest, 0o644)
	}
	if run != "" {
		f.write(filepath.Join(dir, runFile), run, 0o755)
	}
	return dir
}

func (f *fixture) write(path, content string, perm os.FileMode) {
	f.t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		f.t.Fatal(err)
	}
}

// evidence is a path under scratch for a hook to write to.
func (f *fixture) evidence(name string) string { return filepath.Join(f.scratch, name) }

func (f *fixture) read(path string) string {
	f.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatalf("reading evidence: %v", err)
	}
	return string(data)
}

func (f *fixture) exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runner loads the hooks and opens the approvals as the app would.
func (f *fixture) runner(configure ...func(*Options)) *Runner {
	f.t.Helper()
	set, problems := Load(f.hooksDir, f.userDir)
	for _, p := range problems {
		f.t.Logf("load problem: %s", p)
	}
	trust, err := OpenTrust(f.trustPath)
	if err != nil {
		f.t.Fatal(err)
	}
	opts := Options{
		CacheDir:       f.cacheDir,
		SessionID:      "session-1",
		ProjectDir:     f.project,
		DefaultTimeout: 10 * time.Second,
		Validate:       requireCommand,
	}
	for _, c := range configure {
		c(&opts)
	}
	return NewRunner(set, trust, opts)
}

// approved returns a runner with every named hook approved.
func (f *fixture) approved(names ...string) *Runner {
	f.t.Helper()
	r := f.runner()
	for _, n := range names {
		if err := r.Approve(n); err != nil {
			f.t.Fatal(err)
		}
	}
	return r
}

// requireCommand stands in for a tool's JSON schema: an object with a
// string "command" and nothing else.
func requireCommand(tool string, input json.RawMessage) error {
	var in map[string]any
	if err := json.Unmarshal(input, &in); err != nil {
		return err
	}
	if _, ok := in["command"].(string); !ok || len(in) != 1 {
		return fmt.Errorf("%s input must be {\"command\": string}", tool)
	}
	return nil
}

func preBash(r *Runner, command string) Result {
	in, _ := json.Marshal(map[string]string{"command": command})
	return r.PreTool(context.Background(), "bash", "call-1", "", in)
}

func wantBlocked(t *testing.T, res Result, hook string, fragments ...string) {
	t.Helper()
	if !res.Blocked {
		t.Fatalf("call was not blocked: %+v", res)
	}
	if res.Hook != hook {
		t.Errorf("blocked by %q, want %q", res.Hook, hook)
	}
	for _, frag := range fragments {
		if !strings.Contains(res.Reason, frag) {
			t.Errorf("reason %q lacks %q", res.Reason, frag)
		}
	}
}

func wantAllowed(t *testing.T, res Result) {
	t.Helper()
	if res.Blocked {
		t.Fatalf("call blocked: %s", res.Reason)
	}
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
