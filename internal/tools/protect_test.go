package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
				before := tooltest.Snapshot(t, env.Root)
				_, err := tooltest.Call(t, tooltest.Named(t, tools.Builtin(tools.Deps{Env: env}), name), input)
				if err == nil {
					t.Fatalf("%s on %s succeeded", call, target)
				}
				if !errors.Is(err, workspace.ErrProtected) && !strings.Contains(err.Error(), "refused to change") {
					t.Errorf("%s on %s: %v, want the protected-path refusal", call, target, err)
				}
				tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))
			})
		}
	}
}

// TestFileToolsStillWriteOrdinaryFiles: the refusal leaves everything else
// alone, new folders included.
func TestFileToolsStillWriteOrdinaryFiles(t *testing.T) {
	env := wstest.Env(t, map[string]string{".shiro/config.json": "{}\n", "notes.txt": "notes\n"})
	tooltest.Ok(t, tooltest.Named(t, tools.Builtin(tools.Deps{Env: env}), "write_file"), map[string]any{"path": "out/reports/r.md", "content": "ok\n"})
	if got := tooltest.ReadFile(t, env.Root, "out/reports/r.md"); got != "ok\n" {
		t.Fatalf("out/reports/r.md: %q", got)
	}
}
