package tui

import (
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/registry"
)

const sqlSkill = `---
name: sql-review
description: Review SQL migrations for locking and data loss.
---
Read every migration and flag the dangerous ones.
`

// serveSignedSkill serves a registry index with one skill signed by a
// publisher, and trusts that publisher in the user's config.
func serveSignedSkill(t *testing.T, env *testEnv) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(slices.Repeat([]byte{7}, ed25519.SeedSize))
	sig, err := registry.SignSkill([]byte(sqlSkill), priv)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	index, _ := json.Marshal(map[string]any{"skills": []map[string]string{{
		"name": "sql-review", "description": "Review SQL migrations", "url": srv.URL + "/skills/sql-review.md",
		"signer": "acme", "signature": sig,
	}}})
	mux.HandleFunc("/index.json", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(index) })
	mux.HandleFunc("/skills/sql-review.md", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(sqlSkill)) })
	pub := registry.EncodePublicKey(priv.Public().(ed25519.PublicKey))
	cfg := `{"registry": {"url": "` + srv.URL + `/index.json", "publishers": {"acme": "` + pub + `"}}}`
	dir := filepath.Join(env.home, ".shiro-neko")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A skill added from the registry is picked up when the next message
// starts its turn (never in the middle of one): the turn says it reloaded,
// the prompt lists the skill and the skill tool loads it. Removing it takes
// it out of the next turn the same way.
func TestRegistryAddTakesEffectFromTheNextMessage(t *testing.T) {
	env := newTestEnv(t)
	serveSignedSkill(t, env)
	p := newRoutedProvider(map[string][][]llm.StreamPart{
		"review the migrations": {
			{call("s1", "skill", map[string]string{"name": "sql-review"}), finish(10, 5)},
			{llm.TextDelta{Text: "Reviewed with the skill."}, finish(10, 5)},
		},
	})
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), p)
	d := startDriver(t, a, ap, Options{})

	d.submit("/registry add sql-review")
	d.waitText("Install skill sql-review?", "y yes | n no")
	d.press("y")
	d.waitText("✓ installed skill sql-review to", "it takes effect from your next message")
	d.inspect(func(m *model) {
		if strings.Contains(app.DescribeSkills(m.app), "sql-review") {
			t.Error("the skill loaded before the next turn")
		}
	})

	d.submit("review the migrations")
	d.waitIdle()
	d.waitText("· reloaded extensions:", "● skill sql-review\n  ⎿ Skill \"sql-review\" (registry). Follow these instructions",
		"Reviewed with the skill.")
	prompts := p.systemPrompts()
	if len(prompts) != 2 || !strings.Contains(prompts[0], "sql-review") {
		t.Fatalf("the first request of the turn does not offer the skill:\n%s", strings.Join(prompts, "\n-----\n"))
	}
	d.submit("/skills")
	d.waitFor("/skills to list the skill", func(f string) bool {
		return regexp.MustCompile(`sql-review +registry +Review SQL migrations for locking and data loss\.`).MatchString(f)
	})

	d.submit("/registry remove sql-review")
	d.waitText("removed skill sql-review", "this takes effect from your next message")
	p.mu.Lock()
	// The route is the conversation's first message.
	p.scripts["review the migrations"] = [][]llm.StreamPart{{llm.TextDelta{Text: "Done."}, finish(10, 5)}}
	p.mu.Unlock()
	d.submit("and now?")
	d.waitIdle()
	d.waitText("Done.")
	if prompts = p.systemPrompts(); strings.Contains(prompts[2], "sql-review") {
		t.Fatalf("the removed skill is still offered:\n%s", prompts[2])
	}
}
