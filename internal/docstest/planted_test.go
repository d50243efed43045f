package docstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

// Each kind of check fails on a wrong claim and passes the right one next
// to it: a planted doc per kind, run through the same checker as the real
// docs.
func TestEveryKindOfWrongClaimIsCaught(t *testing.T) {
	f := gather(t)
	cases := []struct {
		kind, doc, wrong, right string
	}{
		{"command flag", "docs/x.md", "Run `shiro hooks list --verbose`.", "Run `shiro registry add skill:x --yes`."},
		{"subcommand", "docs/x.md", "Run `shiro hooks lst`.", "Run `shiro hooks list`."},
		{"command in a code block", "docs/x.md", "```\nprintf x | shiro -p --stream --json\n```", "```\nprintf x | shiro -p --input-format stream-json --json   # one op a line\n```"},
		{"flag on its own", "docs/x.md", "Pass `--yolo-mode`.", "Pass `--no-memory` or `-v/--version`."},
		{"state path", "docs/x.md", "Copies live in `$SHIRO_HOME/.shiro-neko/cache/hooks/<digest>/`.", "Copies live in `~/.shiro-neko/hook-cache/<digest>/` and `memory/`: `.shiro-neko/memory/<key>.json`."},
		{"state listing", "docs/x.md", "```\n$SHIRO_HOME/.shiro-neko/\n  cache/hooks/     copies\n```", "```\n$SHIRO_HOME/.shiro-neko/\n  hook-cache/      copies\n  hooks.json.lock  the lock\n```"},
		{"project path", "docs/x.md", "Put agents in `.shiro/agents/`.", "Put skills in `<workspace>/.shiro/skills/`."},
		{"repository path", "docs/x.md", "The grep tool is in `internal/tools/grep`.", "The grep tool is in `internal/tools/search` (`internal/tools/{search,nav}`, `internal/secrets.NamePatterns`)."},
		{"go file", "docs/x.md", "See `llm/anthropic/caching.go`.", "See `llm/anthropic/cache.go`; a patch may touch `src/app.go`."},
		{"slash command", "docs/x.md", "Type `/rewind`.", "Type `/workflow`, `/hooks approve NAME` or `/exit`."},
		{"tool name", "docs/x.md", "The model calls `web_browse`.", "The model calls `web_fetch`; a hook reads `tool_call_id`."},
		{"table of tools", "docs/x.md", "| tool | what |\n|---|---|\n| `grepp` | searches |\n", "| tool | what |\n|---|---|\n| `grep` | searches |\n"},
		{"test name", "docs/x.md", "See `TestNoSuchThing`.", "See `TestDocsMatchTheCode`."},
		{"figure", "docs/memory.md", "A project keeps at most **301** entries.", "A project keeps at most **300** entries."},
		{"generated section", "docs/tools.md",
			listBegin + "\n" + renderList(f.tools, f.packages) + listEnd + "\n" + costBegin + "\n| set | tools |\n" + costEnd,
			listBegin + "\n" + renderList(f.tools, f.packages) + listEnd + "\n" + costBegin + "\n" + f.cost.render(f.tools) + costEnd},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			if got := plant(f, tc.doc, tc.wrong); len(got) == 0 {
				t.Errorf("the wrong claim passed: %q", tc.wrong)
			} else {
				first, _, _ := strings.Cut(got[0], "\n")
				t.Logf("caught: %s", first)
			}
			if got := plant(f, tc.doc, tc.right); len(got) > 0 {
				t.Errorf("the right claim failed: %q\n%s", tc.right, strings.Join(got, "\n"))
			}
		})
	}
}

// plant runs the checks on one made-up doc and returns what they found,
// leaving out the pins the doc does not try to state.
func plant(f *facts, name, text string) []string {
	c := newChecker(f)
	d := parseDoc(name, []byte(text))
	c.check(d)
	c.figures(d)
	if name == "docs/tools.md" {
		c.generatedSections([]doc{d})
	}
	var out []string
	for _, p := range c.problems {
		if !strings.Contains(p.msg, "pinned claim") {
			out = append(out, p.String())
		}
	}
	return out
}

// Each .shiro/<name> the docs may name is one the app reads: a broken
// thing planted there is reported, naming it.
func TestProjectPathsAreRead(t *testing.T) {
	plants := map[string]struct{ rel, body string }{
		"config.json": {"config.json", "{"},
		"hooks":       {"hooks/stray.txt", "not a hook"},
		"skills":      {"skills/broken.md", "no front matter\n"},
		"plugins":     {"plugins/broken.json", "{"},
		"commands":    {"commands/clear.md", "a custom command cannot replace a built-in\n"},
		"tools":       {"tools/broken.json", "{"},
	}
	for entry := range projectEntries() {
		plant, ok := plants[entry]
		if !ok {
			t.Errorf(".shiro/%s is allowed in the docs but nothing here proves shiro reads it", entry)
			continue
		}
		t.Run(entry, func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			path := filepath.Join(work, ".shiro", filepath.FromSlash(plant.rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(plant.body), 0o644); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"SHIRO_HOME": home, "HOME": home}
			loaded, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
			if err != nil {
				if !strings.Contains(err.Error(), path) {
					t.Fatalf("the error does not name %s: %v", path, err)
				}
				return
			}
			a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Provider: replay.New("docs", nil)})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			for _, p := range a.Problems() {
				if strings.Contains(p.String(), path) {
					return
				}
			}
			t.Fatalf("nothing reported %s; problems: %v", path, a.Problems())
		})
	}
}
