package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// For every tool, what Preview shows is what Run writes: the preview, the
// diff Run returns and the diff of the bytes on disk are one.
func TestPreviewIsWhatRunWrites(t *testing.T) {
	const before = "one\r\ntwo\r\nthree\r\n"
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"edit_file", map[string]any{"path": "f.txt", "oldString": "two", "newString": "2\n2.5"}},
		{"multi_edit", map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldString": "one", "newString": "1"}, {"oldString": "    three", "newString": "3"}}}},
		{"insert_lines", map[string]any{"path": "f.txt", "line": 2, "text": "new"}},
		{"delete_lines", map[string]any{"path": "f.txt", "start": 2, "end": 2}},
		{"replace_lines", map[string]any{"path": "f.txt", "start": 1, "end": 2, "text": "x\ny\nz"}},
		{"append_file", map[string]any{"path": "f.txt", "text": "end"}},
		{"prepend_file", map[string]any{"path": "f.txt", "text": "top"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			env := wstest.Env(t, map[string]string{"f.txt": before})
			preview, ran := tooltest.PreviewAndRun(t, family.Named(t, env, c.tool), c.input)
			after := tooltest.ReadFile(t, env.Root, "f.txt")
			if after == before {
				t.Fatal("nothing was written")
			}
			onDisk := tool.FileDiff("f.txt", before, after)
			if *preview != *onDisk || *ran != *onDisk {
				t.Errorf("preview %+v\nresult %+v\non disk %+v", preview, ran, onDisk)
			}
		})
	}
}

// A file that changed between the preview and the run is not written, and
// the model is told to read it again.
func TestRunRefusesAFileChangedSincePreview(t *testing.T) {
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"edit_file", map[string]any{"path": "f.txt", "oldString": "two", "newString": "2"}},
		{"replace_lines", map[string]any{"path": "f.txt", "start": 2, "end": 2, "text": "2"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			env := wstest.Env(t, map[string]string{"f.txt": "one\ntwo\n"})
			p, _ := tooltest.Previewed(t, family.Named(t, env, c.tool), c.input)
			wstest.Write(t, env.Root, map[string]string{"f.txt": "one\ntwo\nthree\n"})
			_, err := p.Run(t.Context(), tool.Runtime{})
			if err == nil || !strings.Contains(err.Error(), "f.txt changed on disk") || !strings.Contains(err.Error(), "Read it again") {
				t.Fatalf("err = %v", err)
			}
			if got := tooltest.ReadFile(t, env.Root, "f.txt"); got != "one\ntwo\nthree\n" {
				t.Errorf("on disk %q", got)
			}
		})
	}
}

func TestEditToolsRefuseFIFOs(t *testing.T) {
	env := wstest.Env(t, nil)
	if err := mkfifo(filepath.Join(env.Root, "pipe")); err != nil {
		t.Skip("cannot make a FIFO here:", err)
	}
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{
		{"edit_file", map[string]any{"path": "pipe", "oldString": "a", "newString": "b"}},
		{"multi_edit", map[string]any{"path": "pipe", "edits": []map[string]any{{"oldString": "a", "newString": "b"}}}},
		{"append_file", map[string]any{"path": "pipe", "text": "x"}},
	} {
		if msg := family.Fail(t, env, c.tool, c.in); !strings.Contains(msg, "pipe is not a regular file") {
			t.Errorf("%s: got %q", c.tool, msg)
		}
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "pipe")); err != nil {
		t.Error(err)
	}
}
