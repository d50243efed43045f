package tools_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// TestEveryFileToolRefusesProtectedPaths drives each tool that changes
// files at the project's config, a git hook and git's config, directly and
// through a symlinked folder, and checks the bytes on disk afterwards.
func TestEveryFileToolRefusesProtectedPaths(t *testing.T) {
	// Every protected file holds this, so each call would succeed on an
	// ordinary file: the refusal is the only reason for it to fail.
	const body = "[]\nsecond\n"
	// target → a file beside it that does not exist yet, for the moves.
	targets := map[string]string{
		".shiro/config.json":    ".shiro/tools/evil.json",
		".git/config":           ".git/commondir",
		"cfglink/config.json":   "cfglink/new.json",
		".git/hooks/pre-commit": ".git/hooks/post-checkout",
	}
	calls := func(p, fresh string) map[string]any {
		return map[string]any{
			"write_file":       map[string]any{"path": p, "content": "{\"plugins\":[\"format\"]}\n"},
			"edit_file":        map[string]any{"path": p, "oldString": "[]", "newString": "[\"format\"]"},
			"multi_edit":       map[string]any{"path": p, "edits": []map[string]any{{"oldString": "[]", "newString": "[\"format\"]"}}},
			"insert_lines":     map[string]any{"path": p, "line": 1, "text": "x"},
			"delete_lines":     map[string]any{"path": p, "start": 1, "end": 1},
			"replace_lines":    map[string]any{"path": p, "start": 1, "end": 1, "text": "x"},
			"append_file":      map[string]any{"path": p, "text": "x"},
			"prepend_file":     map[string]any{"path": p, "text": "x"},
			"move_file":        map[string]any{"from": "notes.txt", "to": fresh},
			"move_file out":    map[string]any{"from": p, "to": "stolen.txt"},
			"delete_file":      map[string]any{"path": p},
			"write_file new":   map[string]any{"path": fresh, "content": "x\n"},
			"apply_patch":      map[string]any{"patch": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-[]\n+[\"format\"]\n*** End Patch"},
			"apply_patch add":  map[string]any{"patch": "*** Begin Patch\n*** Add File: " + fresh + "\n+x\n*** End Patch"},
			"apply_patch move": map[string]any{"patch": "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: " + fresh + "\n@@\n-notes\n+x\n*** End Patch"},
		}
	}
	for target, fresh := range targets {
		for call, input := range calls(target, fresh) {
			name, _, _ := strings.Cut(call, " ")
			t.Run(call+" "+target, func(t *testing.T) {
				env := wstest.Env(t, map[string]string{
					".shiro/config.json": body, ".git/config": body, ".git/hooks/pre-commit": body, "notes.txt": "notes\n",
				})
				if err := os.Symlink(".shiro", filepath.Join(env.Root, "cfglink")); err != nil {
					t.Fatal(err)
				}
				before := snapshot(t, env.Root)
				raw, _ := json.Marshal(input)
				_, err := tooltest.Invoke(t.Context(), named(t, env, name), raw, tool.Runtime{CallID: "t"})
				if err == nil {
					t.Fatalf("%s on %s succeeded", call, target)
				}
				if !errors.Is(err, workspace.ErrProtected) && !strings.Contains(err.Error(), "refused to change") {
					t.Errorf("%s on %s: %v, want the protected-path refusal", call, target, err)
				}
				if after := snapshot(t, env.Root); after != before {
					t.Errorf("%s on %s changed the workspace:\nbefore %s\nafter  %s", call, target, before, after)
				}
			})
		}
	}
}

// TestFileToolsStillWriteOrdinaryFiles: the refusal leaves everything else
// alone, new folders included.
func TestFileToolsStillWriteOrdinaryFiles(t *testing.T) {
	env := wstest.Env(t, map[string]string{".shiro/config.json": "{}\n", "notes.txt": "notes\n"})
	raw, _ := json.Marshal(map[string]any{"path": "out/reports/r.md", "content": "ok\n"})
	if _, err := tooltest.Invoke(t.Context(), named(t, env, "write_file"), raw, tool.Runtime{CallID: "t"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(env.Root, "out", "reports", "r.md")); err != nil || string(b) != "ok\n" {
		t.Fatalf("out/reports/r.md: %q, %v", b, err)
	}
}

func named(t *testing.T, env *workspace.Env, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools.Builtin(tools.Deps{Env: env}) {
		if tl.Info().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// snapshot lists every entry below root with its content, for comparison.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel)
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString("=" + string(data))
		}
		b.WriteString(";")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
