package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The caches come from each tool's settings: a folder a setting names is
// made when missing (the tool would make it, from inside the sandbox,
// where it could not); a default is taken only where it exists; CARGO_HOME
// gives its registry and git folders, never itself, and its credentials
// become secret; a setting that names the home directory is refused.
func TestCachesComeFromTheToolsSettings(t *testing.T) {
	home := t.TempDir()
	cargo := filepath.Join(t.TempDir(), "cargo")
	for _, dir := range []string{".cache/pip", ".m2/repository", filepath.Join(cargo, "registry")} {
		path := dir
		if !filepath.IsAbs(dir) {
			path = filepath.Join(home, dir)
		}
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cargo, "credentials.toml"), []byte("token = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	npm := filepath.Join(home, "npm-cache")
	search := cacheSearch{home: home, env: map[string]string{
		"npm_config_cache": npm, "CARGO_HOME": cargo, "UV_CACHE_DIR": home,
	}}
	got := search.find(t.Context())
	var paths []string
	for _, c := range got.caches {
		paths = append(paths, c.Tool+" "+c.Path+" "+c.From)
	}
	want := []string{
		"npm " + npm + " npm_config_cache",
		"cargo " + filepath.Join(cargo, "registry") + " CARGO_HOME/registry",
		"pip " + filepath.Join(home, ".cache/pip") + " default",
		"maven " + filepath.Join(home, ".m2/repository") + " default",
	}
	if !slices.Equal(paths, want) {
		t.Errorf("caches:\n%s\nwant:\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
	if fi, err := os.Stat(npm); err != nil || !fi.IsDir() {
		t.Errorf("the npm cache npm_config_cache names was not made: %v", err)
	}
	if !slices.Contains(got.secrets, filepath.Join(cargo, "credentials.toml")) {
		t.Errorf("CARGO_HOME's credentials are not secret: %q", got.secrets)
	}
	if !slices.ContainsFunc(got.notes, func(n string) bool {
		return strings.Contains(n, "UV_CACHE_DIR") && strings.Contains(n, "home directory")
	}) {
		t.Errorf("UV_CACHE_DIR=$HOME was not refused with a note: %q", got.notes)
	}
	p := Policy{Mode: WorkspaceWrite, Workspace: t.TempDir(), Home: home, Caches: got.caches, ToolSecrets: got.secrets}
	if !p.writable(filepath.Join(cargo, "registry", "x")) || p.writable(filepath.Join(cargo, "credentials.toml")) {
		t.Error("the policy does not write-enable the cargo registry alone")
	}
	if !p.isSecret(filepath.Join(cargo, "credentials.toml")) || !slices.Contains(p.secrets(), filepath.Join(cargo, "credentials.toml")) {
		t.Error("CARGO_HOME's credentials are not a secret location of the policy")
	}
}
