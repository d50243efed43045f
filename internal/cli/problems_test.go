package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runIn runs shiro in work with home as SHIRO_HOME and HOME.
func runIn(t *testing.T, work, home string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	stdio := IO{
		In: strings.NewReader(""), Out: &syncWriter{b: &out}, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string { return map[string]string{"SHIRO_HOME": home, "HOME": home}[k] },
		Getwd:  func() (string, error) { return work, nil },
	}
	code = Run(t.Context(), args, stdio)
	return code, out.String(), errb.String()
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Load problems are never silent: a headless run prints each one once on
// stderr (and as a notice event with --json), and `shiro plugins` lists
// the plugin ones.
func TestLoadProblemsArePrintedOnce(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	cassette := filepath.Join(t.TempDir(), "c.jsonl")
	writeTree(t, work, map[string]string{
		".shiro/skills/broken.md":    "no front matter here\n",
		".shiro/plugins/broken.json": "{not json",
		".shiro/commands/clear.md":   "Clear it all\n",
		".shiro/hooks/stray.txt":     "not a hook\n",
	})
	if err := os.WriteFile(cassette, []byte(`{"parts":[{"type":"text-delta","text":"ok"},{"type":"finish","reason":"end"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runIn(t, work, home, "-p", "hello", "--provider", "replay", "--cassette", cassette)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"broken.md: does not start with a '---' line", "broken.json", "clear.md: /clear is a built-in command", "stray.txt"} {
		n := 0
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("stderr has %q %d times:\n%s", want, n, stderr)
		}
	}
	_, stdout, _ := runIn(t, work, home, "-p", "hello", "--json", "--provider", "replay", "--cassette", cassette)
	if !strings.Contains(stdout, `{"type":"notice","text":"command `) || !strings.Contains(stdout, `clear.md: /clear is a built-in command`) {
		t.Fatalf("--json has no notice for the command file:\n%s", stdout)
	}
	_, hooks, _ := runIn(t, work, home, "hooks", "list")
	if !strings.Contains(hooks, "problem: hook ") || !strings.Contains(hooks, "stray.txt") {
		t.Fatalf("shiro hooks list:\n%s", hooks)
	}
	_, plugins, _ := runIn(t, work, home, "plugins")
	if !strings.Contains(plugins, "problem: plugin ") || !strings.Contains(plugins, "broken.json") {
		t.Fatalf("shiro plugins:\n%s", plugins)
	}
}

// explain --json keeps a shell line's characters as written: `>` is not
// escaped as \u003e.
func TestExplainJSONKeepsShellCharacters(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	writeTree(t, home, map[string]string{".shiro-neko/config.json": `{"permission":{"grep":{"a>b*":"deny"}}}`})
	code, stdout, stderr := runIn(t, work, home, "explain", "grep", `{"pattern":"a>b"}`, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, `\u003e`) || !strings.Contains(stdout, `a>b*`) {
		t.Fatalf("stdout = %s", stdout)
	}
}
