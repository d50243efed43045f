package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// toolHome is a home directory outside every temp folder, as a person's
// is (issue 28: with HOME under /tmp, which is writable, the caches'
// refusal went unseen): a fresh folder inside the real home, removed
// when the test ends. It holds ~/.ssh and an ~/.npmrc with a token.
func toolHome(t *testing.T) string {
	t.Helper()
	real, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("no home directory: %v", err)
	}
	if strings.HasPrefix(real, filepath.Clean(os.TempDir())+"/") {
		t.Skipf("the home directory %s is in the temp dir, which commands may write anyway", real)
	}
	home, err := os.MkdirTemp(real, ".shiro-cachetest-")
	if err != nil {
		t.Skipf("cannot make a folder in the home directory: %v", err)
	}
	t.Cleanup(func() {
		// Go makes its module cache read-only.
		_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		if err := os.RemoveAll(home); err != nil {
			t.Error(err)
		}
	})
	files := map[string]string{
		".ssh/id_ed25519": sshKey,
		".npmrc":          "//registry.npmjs.org/:_authToken=npm_cachetestsecret\n",
	}
	for rel, body := range files {
		path := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// runEnv runs a bash script in dir through launcher with environ.
func runEnv(t *testing.T, launcher proc.Launcher, dir string, environ []string, script string) (proc.Result, string) {
	t.Helper()
	out := &syncBuffer{}
	res, err := proc.Run(t.Context(), proc.Spec{
		Argv: []string{"bash", "--norc", "-c", script}, Dir: dir, Env: environ,
		Stdout: proc.Stream(out.write), Stderr: proc.SameAsStdout{},
		Grace: time.Second, NewSession: true, DieWithParent: true, Launcher: launcher,
	})
	if err != nil {
		t.Fatalf("run %q: %v", script, err)
	}
	return res, out.String()
}

// withEnv is environ with each of set replacing what it had.
func withEnv(environ []string, set ...string) []string {
	out := slices.Clone(environ)
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		out = append(out, kv)
	}
	return out
}

// The first `go test` of a session works under the default sandbox: the
// go command's caches, as `go env` names them, are writable (issue 28 §1;
// before, GOCACHE was refused and the build failed), with the network
// off; the home directory's secrets stay out of reach all the same, and
// the rest of the home directory stays read-only.
func TestGoTestRunsUnderTheDefaultSandbox(t *testing.T) {
	requireLandlock(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	home := toolHome(t)
	ws := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":        "module example.com/fresh\n\ngo 1.22\n",
		"fresh.go":      "package fresh\n\nfunc Double(n int) int { return 2 * n }\n",
		"fresh_test.go": "package fresh\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(Double(2))\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The build cache is the user's own, in the real home directory,
	// warm (a cold one takes minutes to fill on a busy machine); the
	// module cache is go's default in the test's home, which the sandbox
	// makes since go names it.
	gocache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil || !filepath.IsAbs(strings.TrimSpace(string(gocache))) {
		t.Skipf("go has no build cache here: %v", err)
	}
	gocacheDir := strings.TrimSpace(string(gocache))
	environ := withEnv(os.Environ(), "HOME="+home, "GOCACHE="+gocacheDir,
		"GOPATH=", "GOMODCACHE=", "GOENV=off", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=",
		"PATH="+filepath.Dir(goBin)+":/usr/bin:/bin", "XDG_CACHE_HOME=", "npm_config_cache=")
	sb, err := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Home: home, CacheEnv: environ})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	sb.Start()

	res, out := runEnv(t, sb, ws, environ, "go test ./... && go build ./... && echo BUILT")
	if !res.Exit.Success() || !strings.Contains(out, "BUILT") {
		t.Fatalf("go test under the sandbox failed (%s):\n%s\nsandbox:\n%s", res.Exit, out, sb.Status())
	}
	if _, err := os.Stat(filepath.Join(home, "go", "pkg", "mod")); err != nil {
		t.Errorf("go's module cache, which go env names, was not made: %v", err)
	}
	st := sb.Status().String()
	for _, want := range []string{"go     " + gocacheDir + " (go env GOCACHE)", "go     ~/go/pkg/mod (go env GOMODCACHE)"} {
		if !strings.Contains(st, want) {
			t.Errorf("`shiro sandbox` does not list %q:\n%s", want, st)
		}
	}

	for _, script := range []string{
		"echo planted > ~/.ssh/x",
		"cat ~/.npmrc",
		"echo planted > ~/.npmrc",
		"echo planted > ~/.bashrc",
		"echo planted > ~/.cache/planted",
	} {
		res, out := runEnv(t, sb, ws, environ, script)
		if res.Exit.Success() || strings.Contains(out, "npm_cachetestsecret") {
			t.Errorf("%q succeeded under the sandbox:\n%s", script, out)
		}
	}
	assertMissing(t, filepath.Join(home, ".ssh", "x"))
	assertMissing(t, filepath.Join(home, ".bashrc"))
	assertMissing(t, filepath.Join(home, ".cache", "planted"))
	assertMissing(t, filepath.Join(home, ".cache"))
	assertFile(t, filepath.Join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=npm_cachetestsecret\n")
}

// npm test, cargo test and pytest run in fresh projects under the default sandbox,
// network off, with the home directory outside the temp dir: npm writes
// its cache and logs in ~/.npm, which it names by default and the sandbox
// makes writable since npm is installed. Either is skipped, saying so,
// where the tool is missing.
func TestNpmCargoAndPytestRunUnderTheDefaultSandbox(t *testing.T) {
	requireLandlock(t)
	home := toolHome(t)
	path := "/usr/local/bin:/usr/bin:/bin"
	if p, err := exec.LookPath("python3"); err == nil {
		path = filepath.Dir(p) + ":" + path
	}
	environ := withEnv(os.Environ(), "HOME="+home, "PATH="+path, "npm_config_cache=", "NPM_CONFIG_CACHE=",
		"XDG_CACHE_HOME=", "PIP_CACHE_DIR=", "npm_config_update_notifier=false")
	ws := t.TempDir()
	sb, err := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Home: home, CacheEnv: environ})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	sb.Start()
	write := func(dir string, files map[string]string) {
		t.Helper()
		for name, body := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("npm test", func(t *testing.T) {
		if _, ok := lookIn(environ, "npm"); !ok {
			t.Skip("npm is not installed")
		}
		dir := filepath.Join(ws, "js")
		write(dir, map[string]string{
			"package.json": `{"name": "fresh", "version": "1.0.0", "scripts": {"test": "node --test"}}`,
			"double.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\n" +
				"test('double', () => assert.strictEqual(2 * 2, 4));\n",
		})
		res, out := runEnv(t, sb, dir, environ, "npm test && echo NPM-PASSED")
		if !res.Exit.Success() || !strings.Contains(out, "NPM-PASSED") {
			t.Fatalf("npm test under the sandbox failed (%s):\n%s", res.Exit, out)
		}
		if _, err := os.Stat(filepath.Join(home, ".npm")); err != nil {
			t.Errorf("npm's default cache was not made: %v", err)
		}
	})

	t.Run("cargo test", func(t *testing.T) {
		// rustup's cargo finds its toolchains through RUSTUP_HOME, which
		// stays the real one: toolchains are read, never written.
		real, _ := os.UserHomeDir()
		cargoHome, rustupHome := envOr("CARGO_HOME", filepath.Join(real, ".cargo")), envOr("RUSTUP_HOME", filepath.Join(real, ".rustup"))
		cargo := filepath.Join(cargoHome, "bin", "cargo")
		if _, err := os.Stat(cargo); err != nil {
			t.Skipf("cargo is not installed in %s", cargoHome)
		}
		env := withEnv(environ, "CARGO_HOME="+cargoHome, "RUSTUP_HOME="+rustupHome, "CARGO_NET_OFFLINE=true",
			"PATH="+filepath.Dir(cargo)+":"+path)
		dir := filepath.Join(ws, "rs")
		write(dir, map[string]string{
			"Cargo.toml": "[package]\nname = \"fresh\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/lib.rs": "pub fn double(n: i32) -> i32 { 2 * n }\n\n#[test]\nfn doubles() { assert_eq!(double(2), 4); }\n",
		})
		res, out := runEnv(t, sb, dir, env, "cargo test -q && echo CARGO-PASSED")
		if !res.Exit.Success() || !strings.Contains(out, "CARGO-PASSED") {
			t.Fatalf("cargo test under the sandbox failed (%s):\n%s", res.Exit, out)
		}
	})

	t.Run("pytest", func(t *testing.T) {
		py, ok := lookIn(environ, "python3")
		if !ok {
			t.Skip("python3 is not installed")
		}
		if err := exec.Command(py, "-c", "import pytest").Run(); err != nil {
			t.Skipf("pytest is not installed for %s", py)
		}
		dir := filepath.Join(ws, "py")
		write(dir, map[string]string{"test_double.py": "def test_double():\n    assert 2 * 2 == 4\n"})
		res, out := runEnv(t, sb, dir, environ, "python3 -m pytest -q -p no:cacheprovider && echo PYTEST-PASSED")
		if !res.Exit.Success() || !strings.Contains(out, "PYTEST-PASSED") {
			t.Fatalf("pytest under the sandbox failed (%s):\n%s", res.Exit, out)
		}
	})
}

// lookIn finds file on the PATH of environ.
func lookIn(environ []string, file string) (string, bool) {
	for _, kv := range environ {
		if dirs, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(dirs) {
				p := filepath.Join(dir, file)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
					return p, true
				}
			}
		}
	}
	return "", false
}

// envOr is the variable's value, or def when it is not set.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
