package files

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestListDir(t *testing.T) {
	env := wstest.IgnoreFixture(t)
	wstest.Write(t, env.Root, map[string]string{"big.bin": strings.Repeat("x", 3000), "empty/": ""})
	out := family.Ok(t, env, "list_dir", map[string]any{"depth": 1})
	want := "./\n" +
		"  .hidden/ …\n  docs/ …\n  empty/ …\n  gen/ …\n  src/ …\n  sub/ …\n" +
		"  .gitignore (48B)\n  .shiroignore (39B)\n  a.txt (16B)\n  big.bin (2.9K)\n  important.bak (24B)\n  keep.log (19B)\n" +
		"  link-dir@ (symlink, not followed)\n" +
		"[5 ignored entries hidden; includeIgnored: true shows them]"
	if out != want {
		t.Errorf("depth 1:\n%s\nwant:\n%s", out, want)
	}
	out = family.Ok(t, env, "list_dir", map[string]any{"path": "sub", "depth": 3})
	want = "sub/\n" +
		"  deeper/\n    .gitignore (11B)\n    local.txt (31B)\n" +
		"  x/\n    anchored.txt (29B)\n" +
		"  .gitignore (24B)\n  .shiroignore (5B)\n" +
		"[5 ignored entries hidden; includeIgnored: true shows them]"
	if out != want {
		t.Errorf("sub depth 3:\n%s\nwant:\n%s", out, want)
	}
	out = family.Ok(t, env, "list_dir", map[string]any{"path": "empty"})
	if out != "empty/\n  (empty)" {
		t.Errorf("got %q", out)
	}
	out = family.Ok(t, env, "list_dir", map[string]any{"path": "sub", "depth": 1, "includeIgnored": true})
	tooltest.Contains(t, out, "  gen/ …\n", "  anchored.txt (27B)\n", "  app.log (22B)\n", "  local.txt (24B)")
	if strings.Contains(out, "node_modules") {
		t.Error("node_modules is never listed")
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "nope"}, "No such directory: nope"},
		{map[string]any{"path": "a.txt"}, "a.txt is a file, not a directory; use read_file to read it."},
		{map[string]any{"path": ".."}, "path escapes workspace"},
		{map[string]any{"path": "link-dir/.."}, ""},
	} {
		if c.want == "" {
			family.Ok(t, env, "list_dir", c.in) // link-dir/.. is cleaned lexically to the root
			continue
		}
		if msg := family.Fail(t, env, "list_dir", c.in); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%v: got %q", c.in, msg)
		}
	}
	tooltest.Contains(t, family.Refuse(t, env, "list_dir", map[string]any{"depth": 0}).Error(), "depth", "1", "0")
	tooltest.Contains(t, family.Refuse(t, env, "list_dir", map[string]any{"depth": 7}).Error(), "depth", "6", "7")
}

func TestListDirEntryCapKeepsShallowLevelsWhole(t *testing.T) {
	files := map[string]string{}
	for i := range 5 {
		for j := range 100 {
			files[fmt.Sprintf("d%d/f%03d.txt", i, j)] = "x"
		}
	}
	env := wstest.Env(t, files)
	out := family.Ok(t, env, "list_dir", map[string]any{"depth": 2})
	for i := range 5 {
		tooltest.Contains(t, out, fmt.Sprintf("  d%d/", i))
	}
	if n := strings.Count(out, ".txt"); n != listMaxEntries-5 {
		t.Errorf("%d files listed, want %d", n, listMaxEntries-5)
	}
	tooltest.Contains(t, out, "[stopped at 300 entries; list a subdirectory or use a smaller depth to see the rest]")
	tooltest.Contains(t, out, "  d3/ …") // d3 was not opened
}
