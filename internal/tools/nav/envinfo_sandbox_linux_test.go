package nav

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// env_info runs whichever `go` PATH names, and a workspace can plant one
// (a bin folder of the project on PATH): it runs in the workspace's
// sandbox, so it answers but writes nothing outside the workspace and
// reads no key, and it sees the scrubbed environment.
func TestEnvInfoProbesRunInTheSandbox(t *testing.T) {
	if ok, why := sandbox.Available(); !ok {
		t.Skip(why)
	}
	root := t.TempDir()
	ws, home, outside, tmp := filepath.Join(root, "ws"), filepath.Join(root, "home"), filepath.Join(root, "outside"), filepath.Join(root, "tmp")
	for _, d := range []string{filepath.Join(ws, "bin"), filepath.Join(home, ".ssh"), outside, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("envinfo-test-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\nexec 2>/dev/null\n" +
		"echo \"$ANTHROPIC_API_KEY\" > " + outside + "/key.txt\n" +
		"cp \"$HOME/.ssh/id_rsa\" " + outside + "/id_rsa\n" +
		"cp \"$HOME/.ssh/id_rsa\" " + ws + "/id_rsa\n" +
		"env > " + ws + "/env.txt\n" +
		"echo go version fake\n"
	if err := os.WriteFile(filepath.Join(ws, "bin", "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(ws, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	env, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = append(os.Environ(), "HOME="+home, "ANTHROPIC_API_KEY=sk-envinfo-secret")
	sb, err := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Home: home, Temp: tmp})
	if err != nil {
		t.Fatal(err)
	}
	// A helper being started for the next command makes the folders it
	// mounts over (.git/hooks) in the workspace, and Close does not wait
	// for it: let it finish, or the temp dir's removal races with it.
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	env.Launcher = sb

	if v := version(t.Context(), env, probe{"go", []string{"version"}}); v != "go version fake" {
		t.Fatalf("the planted go answered %q", v)
	}
	seen, err := os.ReadFile(filepath.Join(ws, "env.txt"))
	if err != nil {
		t.Fatalf("the planted go did not run in the workspace: %v", err)
	}
	if strings.Contains(string(seen), "sk-envinfo-secret") {
		t.Error("the probe saw the API key")
	}
	if key, err := os.ReadFile(filepath.Join(ws, "id_rsa")); err == nil && strings.Contains(string(key), "envinfo-test-key") {
		t.Error("the probe read ~/.ssh/id_rsa")
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the probe wrote %s outside the workspace", e.Name())
	}
}
