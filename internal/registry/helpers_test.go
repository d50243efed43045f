package registry

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeRegistry is a loopback HTTP server holding an index and entries,
// recording every request it receives.
type fakeRegistry struct {
	srv *httptest.Server

	mu       sync.Mutex
	files    map[string][]byte
	requests []*http.Request
}

func newFakeRegistry(t *testing.T) *fakeRegistry {
	t.Helper()
	f := &fakeRegistry{files: make(map[string][]byte)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Clone(context.Background()))
		body, ok := f.files[r.URL.Path]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRegistry) url(path string) string { return f.srv.URL + path }

func (f *fakeRegistry) put(path string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = body
}

// hits counts the requests for path.
func (f *fakeRegistry) hits(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r.URL.Path == path {
			n++
		}
	}
	return n
}

func (f *fakeRegistry) allRequests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// publisher is a test signing key with its name.
type publisher struct {
	name string
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

func newPublisher(name string, seed byte) publisher {
	priv := ed25519.NewKeyFromSeed(slices.Repeat([]byte{seed}, ed25519.SeedSize))
	return publisher{name: name, priv: priv, pub: priv.Public().(ed25519.PublicKey)}
}

func (p publisher) configured() map[string]string {
	return map[string]string{p.name: EncodePublicKey(p.pub)}
}

// signManifestRaw signs any JSON object, valid manifest or not, so tests
// can show that a good signature does not excuse a bad manifest.
func (p publisher) signManifestRaw(t *testing.T, manifest []byte) []byte {
	t.Helper()
	msg, err := ManifestSignedBytes(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	m["signer"] = p.name
	m["signature"] = base64.StdEncoding.EncodeToString(ed25519.Sign(p.priv, msg))
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (p publisher) signSkill(skill []byte) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(p.priv, SkillSignedBytes(skill)))
}

const sampleManifest = `{
  "name": "no-sql-edits",
  "description": "refuses edits to SQL files",
  "appendix": "The no-sql-edits plugin refuses edits to .sql files; ask the user.",
  "deny": [
    {"tools": ["write_file", "edit_file"], "pathPattern": "\\.sql$", "reason": "SQL files are edited by the DBA"},
    {"tools": ["bash"], "commandPattern": "^psql\\b", "reason": "no database shells"}
  ]
}`

const sampleSkill = `---
name: sql-review
description: Review SQL migrations for locking and data loss.
---
1. Read every migration.
2. Flag statements that rewrite large tables.
`

// manifestNamed is sampleManifest renamed.
func manifestNamed(name string) []byte {
	return []byte(strings.Replace(sampleManifest, `"no-sql-edits"`, `"`+name+`"`, 1))
}

func skillNamed(name string) []byte {
	return []byte(strings.Replace(sampleSkill, "name: sql-review", "name: "+name, 1))
}

// entry is an index entry as JSON members.
type entry map[string]any

func indexJSON(t *testing.T, skills, plugins []entry) []byte {
	t.Helper()
	doc := map[string]any{}
	if skills != nil {
		doc["skills"] = skills
	}
	if plugins != nil {
		doc["plugins"] = plugins
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testEnv is a registry client over a fake server and a temp install dir.
type testEnv struct {
	fake   *fakeRegistry
	dir    string
	client *Client
}

func newTestEnv(t *testing.T, trust Trust) *testEnv {
	t.Helper()
	fake := newFakeRegistry(t)
	dir := filepath.Join(t.TempDir(), "registry")
	return &testEnv{fake: fake, dir: dir, client: New(Options{IndexURL: fake.url("/index.json"), Dir: dir, Trust: trust})}
}

// serve publishes one skill and one plugin entry (either may be nil) with
// their bodies, under their own names.
func (e *testEnv) serve(t *testing.T, skill entry, skillBody []byte, plugin entry, pluginBody []byte) {
	t.Helper()
	var skills, plugins []entry
	if skill != nil {
		skill = fillEntry(skill, e.fake.url("/skills/"+skill["name"].(string)+".md"))
		skills = append(skills, skill)
		e.fake.put("/skills/"+skill["name"].(string)+".md", skillBody)
	}
	if plugin != nil {
		plugin = fillEntry(plugin, e.fake.url("/plugins/"+plugin["name"].(string)+".json"))
		plugins = append(plugins, plugin)
		e.fake.put("/plugins/"+plugin["name"].(string)+".json", pluginBody)
	}
	e.fake.put("/index.json", indexJSON(t, skills, plugins))
}

func fillEntry(e entry, url string) entry {
	out := maps.Clone(e)
	if _, ok := out["description"]; !ok {
		out["description"] = "a test entry"
	}
	if _, ok := out["url"]; !ok {
		out["url"] = url
	}
	return out
}

// snapshot is every file under dir with its content; a missing dir is
// empty.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}
