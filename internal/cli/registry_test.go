package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

// registryWorld is a SHIRO_HOME, a working directory and a loopback
// registry server.
type registryWorld struct {
	t    *testing.T
	home string
	cwd  string
	srv  *httptest.Server

	mu    sync.Mutex
	files map[string][]byte
}

func newRegistryWorld(t *testing.T) *registryWorld {
	w := &registryWorld{t: t, home: t.TempDir(), cwd: t.TempDir(), files: map[string][]byte{}}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		body, ok := w.files[r.URL.Path]
		w.mu.Unlock()
		if !ok {
			http.NotFound(rw, r)
			return
		}
		_, _ = rw.Write(body)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *registryWorld) serve(path string, body []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[path] = body
}

// run runs shiro with args, stdin as given, and returns the exit code,
// stdout and stderr.
func (w *registryWorld) run(stdin string, args ...string) (int, string, string) {
	w.t.Helper()
	var out, errb bytes.Buffer
	stdio := IO{
		In: strings.NewReader(stdin), Out: &out, Err: &errb,
		Getenv: func(k string) string {
			if k == "SHIRO_HOME" {
				return w.home
			}
			return ""
		},
		Getwd: func() (string, error) { return w.cwd, nil },
	}
	code := Run(w.t.Context(), args, stdio)
	return code, out.String(), errb.String()
}

func (w *registryWorld) mustRun(stdin string, args ...string) string {
	w.t.Helper()
	code, out, errb := w.run(stdin, args...)
	if code != 0 {
		w.t.Fatalf("shiro %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errb)
	}
	return out
}

func (w *registryWorld) writeFile(path string, data []byte) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *registryWorld) registryFile(rel string) string {
	return filepath.Join(w.home, ".shiro-neko", "registry", rel)
}

const cliManifest = `{
  "name": "no-sql-edits",
  "description": "refuses edits to SQL files",
  "deny": [{"tools": ["write_file", "edit_file"], "pathPattern": "\\.sql$", "reason": "SQL files are edited by the DBA"}]
}
`

const cliSkill = `---
name: sql-review
description: Review SQL migrations for locking and data loss.
---
Read every migration and flag the dangerous ones.
`

// The whole publisher-to-user path through the command line: keygen, sign
// both kinds, publish, trust the key, browse, add with a confirmation,
// list installed, remove.
func TestRegistryCommandEndToEnd(t *testing.T) {
	w := newRegistryWorld(t)

	out := w.mustRun("", "registry", "keygen", "--signer", "acme", "--out", "acme.pem")
	keyPath := filepath.Join(w.cwd, "acme.pem")
	info, err := os.Stat(keyPath)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	pub := regexp.MustCompile(`Public key:\s+(\S+)`).FindStringSubmatch(out)
	snippet := regexp.MustCompile(`(?s)\n(\{\n.*?\n\})\n`).FindStringSubmatch(out)
	if pub == nil || snippet == nil || !strings.Contains(out, "Fingerprint: SHA256:") {
		t.Fatalf("keygen output:\n%s", out)
	}
	// The printed snippet is a config file shiro reads, trusting the key.
	cfg, _, err := config.Parse("snippet", []byte(snippet[1]))
	if err != nil || cfg.Registry == nil || cfg.Registry.Publishers["acme"] != pub[1] {
		t.Fatalf("snippet %s: %+v %v", snippet[1], cfg.Registry, err)
	}
	if code, _, errb := w.run("", "registry", "keygen", "--signer", "acme", "--out", "acme.pem"); code == 0 || !strings.Contains(errb, "already exists") {
		t.Errorf("keygen overwrote a key: %d %s", code, errb)
	}

	w.writeFile(filepath.Join(w.cwd, "no-sql-edits.json"), []byte(cliManifest))
	w.writeFile(filepath.Join(w.cwd, "sql-review.md"), []byte(cliSkill))
	signedManifest := w.mustRun("", "registry", "sign", "--key", "acme.pem", "--signer", "acme", "no-sql-edits.json")
	skillFields := w.mustRun("", "registry", "sign", "--key", "acme.pem", "--signer", "acme", "sql-review.md")
	var skillEntry map[string]string
	if err := json.Unmarshal([]byte("{"+skillFields+"}"), &skillEntry); err != nil || skillEntry["signer"] != "acme" {
		t.Fatalf("sign printed %q for a skill: %v", skillFields, err)
	}
	skillEntry["name"], skillEntry["description"], skillEntry["url"] = "sql-review", "Review SQL migrations", w.srv.URL+"/s/sql-review.md"
	index, _ := json.Marshal(map[string]any{
		"skills":  []any{skillEntry},
		"plugins": []any{map[string]string{"name": "no-sql-edits", "description": "No SQL edits", "url": w.srv.URL + "/p/no-sql-edits.json"}},
	})
	w.serve("/index.json", index)
	w.serve("/s/sql-review.md", []byte(cliSkill))
	w.serve("/p/no-sql-edits.json", []byte(signedManifest))
	w.writeFile(filepath.Join(w.home, ".shiro-neko", "config.json"),
		[]byte(`{"registry": {"url": "`+w.srv.URL+`/index.json", "publishers": {"acme": "`+pub[1]+`"}}}`))

	for _, args := range [][]string{{"registry"}, {"registry", "list"}} {
		out = w.mustRun("", args...)
		if !strings.Contains(out, "skill   sql-review") || !strings.Contains(out, "plugin  no-sql-edits") {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	out = w.mustRun("", "registry", "migrations")
	if !strings.Contains(out, "sql-review") || strings.Contains(out, "no-sql-edits") {
		t.Errorf("a bare word searches:\n%s", out)
	}

	code, out, _ := w.run("n\n", "registry", "add", "plugin:no-sql-edits")
	if code != 1 || !strings.Contains(out, "- denies write_file, edit_file: \\.sql$ (paths)") || !strings.Contains(out, "Not installed.") {
		t.Errorf("declined add: %d\n%s", code, out)
	}
	if _, err := os.Stat(w.registryFile("plugins/no-sql-edits.json")); !os.IsNotExist(err) {
		t.Fatal("declining wrote the plugin")
	}
	if out = w.mustRun("y\n", "registry", "add", "plugin:no-sql-edits"); !strings.Contains(out, "Installed plugin no-sql-edits") {
		t.Errorf("add with y:\n%s", out)
	}
	if got, _ := os.ReadFile(w.registryFile("plugins/no-sql-edits.json")); string(got) != signedManifest {
		t.Errorf("installed plugin differs from what was served:\n%s", got)
	}
	out = w.mustRun("", "registry", "add", "sql-review", "--yes")
	if !strings.Contains(out, "----- sql-review.md -----\n"+cliSkill) || !strings.Contains(out, "Installed skill sql-review") {
		t.Errorf("add --yes:\n%s", out)
	}
	out = w.mustRun("", "registry", "installed")
	if !regexp.MustCompile(`skill\s+sql-review\s+-\s+Review SQL`).MatchString(out) || !regexp.MustCompile(`plugin\s+no-sql-edits\s+acme\s+refuses`).MatchString(out) {
		t.Errorf("installed:\n%s", out)
	}
	if out = w.mustRun("", "registry", "list"); !strings.Contains(out, "(installed)") {
		t.Errorf("list does not mark installed entries:\n%s", out)
	}
	w.mustRun("", "registry", "remove", "sql-review")
	w.mustRun("", "registry", "remove", "plugin:no-sql-edits")
	if out = w.mustRun("", "registry", "installed"); !strings.Contains(out, "nothing is installed") {
		t.Errorf("after remove:\n%s", out)
	}
}

// Trust comes from the user's config only: a project config that pins a
// key and allows unsigned entries changes nothing.
func TestRegistryIgnoresProjectTrust(t *testing.T) {
	w := newRegistryWorld(t)
	index, _ := json.Marshal(map[string]any{"plugins": []any{map[string]string{
		"name": "no-sql-edits", "description": "d", "url": w.srv.URL + "/p.json"}}})
	w.serve("/index.json", index)
	w.serve("/p.json", []byte(cliManifest))
	w.writeFile(filepath.Join(w.home, ".shiro-neko", "config.json"), []byte(`{"registry": {"url": "`+w.srv.URL+`/index.json"}}`))
	w.writeFile(filepath.Join(w.cwd, ".shiro", "config.json"), []byte(`{"registry": {"allowUnsigned": true, "url": "https://evil.example/index.json"}}`))

	code, out, errb := w.run("", "registry", "add", "no-sql-edits", "--yes")
	if code != 1 || !strings.Contains(errb, `refusing plugin "no-sql-edits": unsigned; add the publisher key or install manually`) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	if _, err := os.Stat(w.registryFile("")); !os.IsNotExist(err) {
		t.Error("a refused add created the registry directory")
	}
}

func TestRegistryCommandErrors(t *testing.T) {
	w := newRegistryWorld(t)
	w.writeFile(filepath.Join(w.cwd, "notes.txt"), []byte("x"))
	w.mustRun("", "registry", "keygen", "--out", "k.pem")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"registry", "add", "Bad_Name"}, "lower-case letters"},
		{[]string{"registry", "remove", "../x"}, "lower-case letters"},
		{[]string{"registry", "remove", "absent"}, `nothing named "absent" is installed`},
		{[]string{"registry", "sign", "--key", "k.pem", "--signer", "acme", "notes.txt"}, "name a plugin manifest (.json) or a skill (.md)"},
		{[]string{"registry", "sign", "--key", "notes.txt", "--signer", "acme", "notes.txt"}, "not a PEM file"},
		{[]string{"registry", "sign", "--key", "k.pem", "--signer", "two words", "notes.txt"}, "publisher name"},
		{[]string{"registry", "sign", "--signer", "acme", "notes.txt"}, `required flag(s) "key" not set`},
		{[]string{"registry", "keygen", "--signer", "bad name"}, "publisher name"},
	} {
		code, _, errb := w.run("", tc.args...)
		if code == 0 || !strings.Contains(errb, tc.want) {
			t.Errorf("shiro %s: exit %d, stderr %q; want %q", strings.Join(tc.args, " "), code, errb, tc.want)
		}
	}
}
