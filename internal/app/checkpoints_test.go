package app_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/store"
)

// gitIn runs the person's git in dir, with an environment of its own.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// repoState is everything of the person's repository a checkpoint must
// leave alone: the index file's bytes, the stash, refs and the HEAD
// reflog. (The status changes with the turn; it is compared after the
// undo.)
func repoState(t *testing.T, dir string) string {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return string(index) +
		"\x00" + gitIn(t, dir, "stash", "list", "--format=%H %s") +
		"\x00" + gitIn(t, dir, "for-each-ref") +
		"\x00" + gitIn(t, dir, "reflog", "show", "--format=%H %gs")
}

// workTree reads every file and directory of the workspace but .git:
// content and permission bits, by path.
func workTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().String()
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fi.Mode().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s: want %q, got %q", what, k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s: unexpected %q", what, k, v)
		}
	}
}

// openUnsandboxed is openAt with the sandbox off: the test binary cannot
// serve as the sandbox's helper.
func openUnsandboxed(t *testing.T, p place, srv *llmtest.Server, opts app.Options) *app.App {
	t.Helper()
	env := map[string]string{"SHIRO_HOME": p.home, "SHIRO_API_KEY": "test-key", "HOME": p.home}
	loaded, err := app.Load(func(k string) string { return env[k] }, p.work,
		config.Flags{Provider: "custom-anthropic", BaseURL: srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	loaded.Settings.SandboxFlag = "off"
	st := store.New(loaded.Paths.SessionsDB(), store.Options{})
	t.Cleanup(func() { _ = st.Close() })
	opts.Loaded, opts.Store = loaded, st
	a, err := app.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// command runs one slash command line and returns its result.
func command(t *testing.T, a *app.App, line string) protocol.CommandResultEvent {
	t.Helper()
	if _, err := a.Session.Submit(protocol.Command{Line: line}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Line == line {
			if r.Error != "" {
				t.Fatalf("%s: %s", line, r.Error)
			}
			return r
		}
	}
	t.Fatalf("%s: the session ended without a result", line)
	return protocol.CommandResultEvent{}
}

func input(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A turn writes a file with one tool, patches another, and deletes and
// creates files with a command; /undo, in the next process (`shiro -c`),
// brings back the tree byte for byte with its modes and the conversation
// as it was before the turn, and /redo brings the turn back. The person's
// repository is never touched.
func TestUndoAndRedoATurnOfEveryKindOfChange(t *testing.T) {
	p := newPlace(t)
	w := p.work
	gitIn(t, w, "init", "-q")
	for name, f := range map[string]struct {
		content string
		mode    os.FileMode
	}{
		"notes.md":      {"# Notes\n\nfirst\n", 0o644},
		"private.txt":   {"keep me\n", 0o600},
		"run.sh":        {"#!/bin/sh\necho run\n", 0o755},
		"lib/keep.go":   {"package lib\n", 0o644},
		"old/stale.txt": {"stale\n", 0o644},
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(w, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w, name), []byte(f.content), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, w, "add", "-A")
	gitIn(t, w, "commit", "-q", "-m", "start")
	// Something stashed and something staged, for the checkpoints to keep
	// their hands off.
	if err := os.WriteFile(filepath.Join(w, "lib/keep.go"), []byte("package lib // stashed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, w, "stash", "-q")
	if err := os.WriteFile(filepath.Join(w, "private.txt"), []byte("keep me, staged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitIn(t, w, "add", "private.txt")
	repo := repoState(t, w)
	status := gitIn(t, w, "status", "--porcelain=v2", "--untracked-files=all")
	before := workTree(t, w)

	patch := "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n \n-first\n+first, patched\n*** End Patch\n"
	srv := llmtest.New(t,
		llmtest.Reply{Text: "Hello."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{ID: "w1", Name: "write_file", Input: input(t, map[string]string{"path": "new/made.txt", "content": "made by a tool\n"})},
			{ID: "p1", Name: "apply_patch", Input: input(t, map[string]string{"patch": patch})},
			{ID: "b1", Name: "bash", Input: input(t, map[string]string{"command": "rm run.sh old/stale.txt && rmdir old && mkdir gen && printf 'x\\n' > gen/tool.sh && chmod 755 gen/tool.sh"})},
		}},
		llmtest.Reply{Text: "Done."},
		llmtest.Reply{Text: "After redo."},
	)
	first := openUnsandboxed(t, p, srv, app.Options{Yolo: true})
	run(t.Context(), first.Session, "say hello")
	historyBefore := len(first.Owner().History())
	evs := run(t.Context(), first.Session, "make the changes")
	for _, e := range evs {
		if te, ok := e.(protocol.ToolErrorEvent); ok {
			t.Fatalf("tool %s failed: %s", te.Name, te.Error)
		}
	}
	after := workTree(t, w)
	if after["new/made.txt"] == "" || after["gen/tool.sh"] != "-rwxr-xr-x x\n" || after["run.sh"] != "" ||
		!strings.Contains(after["notes.md"], "first, patched") {
		t.Fatalf("the turn did not make its changes: %q", after)
	}
	if got := repoState(t, w); got != repo {
		t.Fatal("the turn's checkpoints changed the person's repository")
	}
	changes := command(t, first, "/changes")
	for _, want := range []string{"added    new/made.txt", "modified notes.md", "deleted  run.sh", "deleted  old/stale.txt", "added    gen/tool.sh"} {
		if !strings.Contains(changes.Output, want) {
			t.Errorf("/changes lacks %q:\n%s", want, changes.Output)
		}
	}
	diff := command(t, first, "/diff")
	if !strings.Contains(diff.Output, "--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n # Notes\n \n-first\n+first, patched\n") {
		t.Errorf("/diff:\n%s", diff.Output)
	}
	historyAfter := len(first.Owner().History())
	first.Close()

	// The next process continues the session and undoes the turn.
	second := openUnsandboxed(t, p, srv, app.Options{Yolo: true, Continue: true})
	undo := command(t, second, "/undo")
	sameTree(t, "after /undo", before, workTree(t, w))

	if got := len(second.Owner().History()); got != historyBefore {
		t.Errorf("after /undo the conversation has %d messages, want %d:\n%s", got, historyBefore, undo.Output)
	}
	if got := gitIn(t, w, "status", "--porcelain=v2", "--untracked-files=all"); got != status {
		t.Errorf("git status after /undo:\n%s\nwant:\n%s", got, status)
	}
	if !strings.Contains(undo.Output, "ran without the sandbox") {
		t.Errorf("/undo does not say the commands ran unconfined:\n%s", undo.Output)
	}
	if got := repoState(t, w); got != repo {
		t.Fatal("/undo changed the person's repository")
	}

	command(t, second, "/redo")
	sameTree(t, "after /redo", after, workTree(t, w))
	if got := len(second.Owner().History()); got != historyAfter {
		t.Errorf("after /redo the conversation has %d messages, want %d", got, historyAfter)
	}
	if got := repoState(t, w); got != repo {
		t.Fatal("/redo changed the person's repository")
	}
}
