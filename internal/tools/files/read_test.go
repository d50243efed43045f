package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestReadFile(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		"a.txt":     "alpha\nbeta\r\ngamma",
		"many.txt":  numbered(1, 2500),
		"empty.txt": "",
		"bin.dat":   "abc\x00def",
		"dir/x.txt": "x",
		"long.txt":  strings.Repeat("y", 2500) + "\nshort\n",
	})
	if got := family.Ok(t, env, "read_file", map[string]any{"path": "a.txt"}); got != "1: alpha\n2: beta\n3: gamma" {
		t.Errorf("got %q", got)
	}

	out := family.Ok(t, env, "read_file", map[string]any{"path": "many.txt"})
	tooltest.Contains(t, out, "1: line 1\n", "2000: line 2000\n\n[showing lines 1-2000 of 2500. Continue with offset=2001.]")
	out = family.Ok(t, env, "read_file", map[string]any{"path": "many.txt", "offset": 2001})
	if !strings.HasPrefix(out, "2001: line 2001\n") || !strings.HasSuffix(out, "2500: line 2500") {
		t.Errorf("offset 2001: %q...%q", out[:30], out[len(out)-30:])
	}
	out = family.Ok(t, env, "read_file", map[string]any{"path": "many.txt", "offset": 10, "limit": 3})
	if want := "10: line 10\n11: line 11\n12: line 12\n\n[showing lines 10-12 of 2500. Continue with offset=13.]"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}

	out = family.Ok(t, env, "read_file", map[string]any{"path": "long.txt"})
	if want := "1: " + strings.Repeat("y", 2000) + " … [line cut at 2000 of 2500 chars]\n2: short"; out != want {
		t.Errorf("long line: got %q", out[len(out)-80:])
	}

	if got := family.Ok(t, env, "read_file", map[string]any{"path": "empty.txt"}); got != "empty.txt is empty." {
		t.Errorf("got %q", got)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "nope.txt"}, "No such file: nope.txt"},
		{map[string]any{"path": "dir"}, "dir is a directory; use list_dir to see what is in it."},
		{map[string]any{"path": "bin.dat"}, "bin.dat is a binary file, not text. Use bash"},
		{map[string]any{"path": "a.txt", "offset": 9}, "offset 9 is past the end of a.txt (3 lines)."},
		{map[string]any{"path": "../outside.txt"}, "path escapes workspace"},
		{map[string]any{"path": "/etc/hostname"}, "path escapes workspace"},
	} {
		if msg := family.Fail(t, env, "read_file", c.in); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%v: got %q, want prefix %q", c.in, msg, c.want)
		}
	}
	// What the schema or the check refuses never runs; the message names
	// the member and what is wrong with it.
	for _, c := range []struct {
		in    map[string]any
		words []string
	}{
		{map[string]any{"path": "a.txt", "offset": 0}, []string{"offset", "1", "0"}},
		{map[string]any{"path": "a.txt", "limit": 0}, []string{"limit", "1", "0"}},
		{map[string]any{}, []string{"missing", "path"}},
		{map[string]any{"path": ""}, []string{"path is required"}},
	} {
		tooltest.Contains(t, family.Refuse(t, env, "read_file", c.in).Error(), c.words...)
	}
}

func TestReadFileStopsAtOutputBudget(t *testing.T) {
	line := strings.Repeat("z", 100)
	env := wstest.Env(t, map[string]string{"wide.txt": strings.Repeat(line+"\n", 1000)})
	out := family.Ok(t, env, "read_file", map[string]any{"path": "wide.txt"})
	if len(out) > tool.ResultCap {
		t.Fatalf("output %d chars exceeds the cap", len(out))
	}
	tooltest.Contains(t, out, "of 1000; the output limit was reached. Continue with offset=")
	if strings.Contains(out, "truncated") {
		t.Error("read_file should stop on a line boundary, not be cut by Cap")
	}
}

func TestReadFileRefusesSymlinkOutside(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"secret.txt": "top secret"})
	env := wstest.Env(t, nil)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(env.Root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	msg := family.Fail(t, env, "read_file", map[string]any{"path": "link.txt"})
	if strings.Contains(msg, "top secret") || !strings.Contains(msg, "escapes workspace") {
		t.Errorf("got %q", msg)
	}
}

func TestReadManyFiles(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "A\n", "b.txt": "B1\nB2\nB3\n", "bin": "\x00"})
	out := family.Ok(t, env, "read_many_files", map[string]any{"files": []map[string]any{
		{"path": "b.txt", "offset": 2, "limit": 1},
		{"path": "missing.txt"},
		{"path": "a.txt"},
		{"path": "bin"},
		{"path": "../x"},
	}})
	want := "===== b.txt =====\n2: B2\n\n[showing lines 2-2 of 3. Continue with offset=3.]\n\n" +
		"===== missing.txt =====\n[unreadable: No such file: missing.txt]\n\n" +
		"===== a.txt =====\n1: A\n\n" +
		"===== bin =====\n[unreadable: bin is a binary file, not text. Use bash (for example `file bin` or `xxd bin | head`) to inspect it.]\n\n" +
		"===== ../x =====\n[unreadable: path escapes workspace: ../x]"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	tooltest.Contains(t, family.Refuse(t, env, "read_many_files", map[string]any{"files": []map[string]any{}}).Error(), "files", "0", "1")
	many := make([]map[string]any, 21)
	for i := range many {
		many[i] = map[string]any{"path": "a.txt"}
	}
	tooltest.Contains(t, family.Refuse(t, env, "read_many_files", map[string]any{"files": many}).Error(), "files", "21", "20")
	tooltest.Contains(t, family.Refuse(t, env, "read_many_files", map[string]any{"files": []map[string]any{{"path": "a.txt", "offset": 0}}}).Error(), "offset")
}

func TestReadManyFilesSharesTheCap(t *testing.T) {
	big := numbered(1, 3000)
	files := map[string]string{}
	var req []map[string]any
	for i := range 4 {
		name := fmt.Sprintf("f%d.txt", i)
		files[name] = big
		req = append(req, map[string]any{"path": name})
	}
	env := wstest.Env(t, files)
	out := family.Ok(t, env, "read_many_files", map[string]any{"files": req})
	if len(out) > tool.ResultCap {
		t.Fatalf("%d chars", len(out))
	}
	for i := range 4 {
		tooltest.Contains(t, out, fmt.Sprintf("===== f%d.txt =====\n1: line 1\n", i))
	}
	if c := strings.Count(out, "the output limit was reached"); c != 4 {
		t.Errorf("%d of 4 blocks have a continue hint", c)
	}
}
