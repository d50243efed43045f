package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestWriteFile(t *testing.T) {
	env := wstest.Env(t, map[string]string{"old.txt": "one\ntwo\n", "d/": ""})
	out := family.Ok(t, env, "write_file", map[string]any{"path": "new/deep/f.txt", "content": "héllo\n"})
	if out != "Wrote 6 chars to new/deep/f.txt (new file)" {
		t.Errorf("got %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "new/deep/f.txt"); got != "héllo\n" {
		t.Errorf("on disk %q", got)
	}
	if err := os.Chmod(filepath.Join(env.Root, "old.txt"), 0o750); err != nil {
		t.Fatal(err)
	}
	if out := family.Ok(t, env, "write_file", map[string]any{"path": "old.txt", "content": "three\n"}); out != "Wrote 6 chars to old.txt" {
		t.Errorf("got %q", out)
	}
	fi, _ := os.Stat(filepath.Join(env.Root, "old.txt"))
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want the old file's 0750", fi.Mode().Perm())
	}
	if out := family.Ok(t, env, "write_file", map[string]any{"path": "old.txt", "content": "three\n"}); out != "old.txt already has this content; nothing was written." {
		t.Errorf("got %q", out)
	}
	if msg := family.Fail(t, env, "write_file", map[string]any{"path": "d", "content": "x"}); msg != "d is a directory; give a file path." {
		t.Errorf("got %q", msg)
	}
	tooltest.Contains(t, family.Refuse(t, env, "write_file", map[string]any{"path": "x.txt"}).Error(), "missing", "content")
	if msg := family.Refuse(t, env, "write_file", map[string]any{"path": "", "content": "x"}).Error(); msg != "invalid arguments: write_file needs both path and content" {
		t.Errorf("got %q", msg)
	}
	// Empty content is a valid file.
	family.Ok(t, env, "write_file", map[string]any{"path": "empty.txt", "content": ""})
	if got := tooltest.ReadFile(t, env.Root, "empty.txt"); got != "" {
		t.Errorf("got %q", got)
	}
	wstest.NoTempFiles(t, env.Root)
}

func TestWriteFileKeepsCRLF(t *testing.T) {
	env := wstest.Env(t, map[string]string{"w.txt": "a\r\nb\r\n"})
	out := family.Ok(t, env, "write_file", map[string]any{"path": "w.txt", "content": "x\ny\nz\n"})
	tooltest.Contains(t, out, "kept the file's CRLF line endings")
	if got := tooltest.ReadFile(t, env.Root, "w.txt"); got != "x\r\ny\r\nz\r\n" {
		t.Errorf("on disk %q", got)
	}
}

func TestWriteFileWarnsOnCollapsedRewrite(t *testing.T) {
	lines := numbered(1, 40)
	env := wstest.Env(t, map[string]string{"c.txt": lines})
	collapsed := strings.ReplaceAll(lines, "\n", " ")
	out := family.Ok(t, env, "write_file", map[string]any{"path": "c.txt", "content": collapsed})
	tooltest.Contains(t, out, "Warning: c.txt went from 40 lines to 1 at about the same size")
	// A real shrink is not flagged.
	out = family.Ok(t, env, "write_file", map[string]any{"path": "c.txt", "content": "short\n"})
	if strings.Contains(out, "Warning") {
		t.Errorf("unexpected warning: %s", out)
	}
}

func TestWriteFileJail(t *testing.T) {
	outside := t.TempDir()
	env := wstest.Env(t, nil)
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "ghost.txt"), filepath.Join(env.Root, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../escape.txt", filepath.Join(outside, "abs.txt"), "out/via-link.txt", "dangling", "a/../../escape2.txt"} {
		msg := family.Fail(t, env, "write_file", map[string]any{"path": p, "content": "pwned"})
		if !strings.Contains(msg, "escapes workspace") && !strings.Contains(msg, "dangling symlink") {
			t.Errorf("%s: got %q", p, msg)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("something was written outside: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(env.Root), "escape.txt")); err == nil {
		t.Error("escape.txt was written next to the workspace")
	}
}

func TestFileToolsRefuseFIFOs(t *testing.T) {
	env := wstest.Env(t, nil)
	if err := mkfifo(filepath.Join(env.Root, "pipe")); err != nil {
		t.Skip("cannot make a FIFO here:", err)
	}
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{
		{"read_file", map[string]any{"path": "pipe"}},
		{"write_file", map[string]any{"path": "pipe", "content": "x"}},
		{"count_tokens", map[string]any{"path": "pipe"}},
		{"json_query", map[string]any{"path": "pipe", "query": "a"}},
	} {
		if msg := family.Fail(t, env, c.tool, c.in); !strings.Contains(msg, "pipe is not a regular file") {
			t.Errorf("%s: got %q", c.tool, msg)
		}
	}
	if msg := family.Fail(t, env, "count_lines", map[string]any{"path": "pipe"}); !strings.Contains(msg, "pipe is not a regular file") {
		t.Errorf("count_lines: got %q", msg)
	}
}

// What Preview shows is what Run writes, and the diff Run returns is the
// diff of the bytes on disk.
func TestWriteFilePreviewIsWhatRunWrites(t *testing.T) {
	for name, before := range map[string]string{"existing": "a\r\nb\r\n", "new": ""} {
		t.Run(name, func(t *testing.T) {
			env := wstest.Env(t, nil)
			if before != "" {
				wstest.Write(t, env.Root, map[string]string{"w.txt": before})
			}
			preview, ran := tooltest.PreviewAndRun(t, family.Named(t, env, "write_file"), map[string]any{"path": "w.txt", "content": "x\ny\n"})
			onDisk := tool.FileDiff("w.txt", before, tooltest.ReadFile(t, env.Root, "w.txt"))
			if *preview != *onDisk || *ran != *onDisk {
				t.Errorf("preview %+v\nresult %+v\non disk %+v", preview, ran, onDisk)
			}
		})
	}
}

// A file that changes between the preview and the run is not written.
func TestWriteFileRefusesAFileChangedSincePreview(t *testing.T) {
	env := wstest.Env(t, map[string]string{"w.txt": "old\n"})
	p, _ := tooltest.Previewed(t, family.Named(t, env, "write_file"), map[string]any{"path": "w.txt", "content": "mine\n"})
	wstest.Write(t, env.Root, map[string]string{"w.txt": "someone else's\n"})
	_, err := p.Run(t.Context(), tool.Runtime{})
	if err == nil || err.Error() != "w.txt changed on disk after this change was computed, so nothing was written. Read it again and redo the change." {
		t.Fatalf("err = %v", err)
	}
	if got := tooltest.ReadFile(t, env.Root, "w.txt"); got != "someone else's\n" {
		t.Errorf("on disk %q", got)
	}
	// A new file that someone else created meanwhile is not replaced.
	p, _ = tooltest.Previewed(t, family.Named(t, env, "write_file"), map[string]any{"path": "n.txt", "content": "mine\n"})
	wstest.Write(t, env.Root, map[string]string{"n.txt": "theirs\n"})
	if _, err := p.Run(t.Context(), tool.Runtime{}); err == nil || !strings.Contains(err.Error(), "changed on disk") {
		t.Fatalf("err = %v", err)
	}
	if got := tooltest.ReadFile(t, env.Root, "n.txt"); got != "theirs\n" {
		t.Errorf("on disk %q", got)
	}
}
