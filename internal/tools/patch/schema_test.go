package patch

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// TestSchemas holds apply_patch's schema to testdata/schemas.golden.json
// (rewrite it with -update and review the diff).
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, Tools(nil), 0)
}

func TestInfo(t *testing.T) {
	ts := Tools(nil)
	if len(ts) != 1 {
		t.Fatalf("%d tools", len(ts))
	}
	info := ts[0].Info()
	if info.Name != "apply_patch" || info.Set != tool.SetEditPlus || info.Effect != tool.Writes ||
		info.Kind != protocol.KindEdit || info.Subject != tool.PathSubject || info.Guidance == "" {
		t.Errorf("info %+v", info)
	}
}

// What Preview shows is what Run writes: for a one-file patch the diff of
// the bytes on disk; for several files, one diff with a section each.
func TestPreviewIsWhatRunWrites(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "one\r\ntwo\r\n"})
	preview, ran := tooltest.PreviewAndRun(t, applyPatchTool(env, nil), map[string]string{"patch": envelope("*** Update File: a.txt\n@@\n one\n-two\n+2")})
	onDisk := tool.FileDiff("a.txt", "one\r\ntwo\r\n", tooltest.ReadFile(t, env.Root, "a.txt"))
	if *preview != *onDisk || *ran != *onDisk {
		t.Errorf("preview %+v\nresult %+v\non disk %+v", preview, ran, onDisk)
	}

	env = wstest.Env(t, map[string]string{"b.txt": "b\n", "gone.txt": "bye\n", "mv.txt": "m\n"})
	preview, ran = tooltest.PreviewAndRun(t, applyPatchTool(env, nil), map[string]string{"patch": envelope(
		"*** Add File: new.txt\n+n",
		"*** Update File: b.txt\n@@\n-b\n+B",
		"*** Delete File: gone.txt",
		"*** Update File: mv.txt\n*** Move to: moved.txt",
	)})
	want := tool.FileDiff("new.txt", "", "n\n").Unified +
		tool.FileDiff("b.txt", "b\n", "B\n").Unified +
		tool.FileDiff("gone.txt", "bye\n", "").Unified +
		"--- a/mv.txt\n+++ b/moved.txt\n"
	if preview.Unified != want || !preview.Truncated || preview.Path != "new.txt" || *preview != *ran {
		t.Errorf("preview %+v\nresult %+v\nwant unified %q", preview, ran, want)
	}
	wstest.Unchanged(t, env.Root, map[string]string{"new.txt": "n\n", "b.txt": "B\n", "moved.txt": "m\n"})
}

// A file the patch reads, changed between the preview and the run, stops
// the whole patch.
func TestRunRefusesFilesChangedSincePreview(t *testing.T) {
	for _, c := range []struct {
		name      string
		meanwhile map[string]string
		stale     string
	}{
		{"updated file", map[string]string{"u.txt": "u changed\n"}, "u.txt"},
		{"deleted file", map[string]string{"d.txt": "d changed\n"}, "d.txt"},
		{"added file appeared", map[string]string{"n.txt": "theirs\n"}, "n.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := wstest.Env(t, map[string]string{"u.txt": "u\n", "d.txt": "d\n"})
			p, _ := tooltest.Previewed(t, applyPatchTool(env, nil), map[string]string{"patch": envelope(
				"*** Update File: u.txt\n@@\n-u\n+U",
				"*** Delete File: d.txt",
				"*** Add File: n.txt\n+mine",
			)})
			wstest.Write(t, env.Root, c.meanwhile)
			want := map[string]string{"u.txt": "u\n", "d.txt": "d\n"}
			for k, v := range c.meanwhile {
				want[k] = v
			}
			_, err := p.Run(t.Context(), tool.Runtime{})
			if err == nil || !strings.Contains(err.Error(), c.stale+" changed on disk") {
				t.Fatalf("err = %v", err)
			}
			wstest.Unchanged(t, env.Root, want)
		})
	}
}
