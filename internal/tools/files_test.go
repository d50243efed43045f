package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	env := ftEnv(t, map[string]string{
		"a.txt":     "alpha\nbeta\r\ngamma",
		"many.txt":  numbered(1, 2500),
		"empty.txt": "",
		"bin.dat":   "abc\x00def",
		"dir/x.txt": "x",
		"long.txt":  strings.Repeat("y", 2500) + "\nshort\n",
	})
	if got := ftOK(t, env, "read_file", map[string]any{"path": "a.txt"}); got != "1: alpha\n2: beta\n3: gamma" {
		t.Errorf("got %q", got)
	}

	out := ftOK(t, env, "read_file", map[string]any{"path": "many.txt"})
	ftContains(t, out, "1: line 1\n", "2000: line 2000\n\n[showing lines 1-2000 of 2500. Continue with offset=2001.]")
	out = ftOK(t, env, "read_file", map[string]any{"path": "many.txt", "offset": 2001})
	if !strings.HasPrefix(out, "2001: line 2001\n") || !strings.HasSuffix(out, "2500: line 2500") {
		t.Errorf("offset 2001: %q...%q", out[:30], out[len(out)-30:])
	}
	out = ftOK(t, env, "read_file", map[string]any{"path": "many.txt", "offset": 10, "limit": 3})
	if want := "10: line 10\n11: line 11\n12: line 12\n\n[showing lines 10-12 of 2500. Continue with offset=13.]"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}

	out = ftOK(t, env, "read_file", map[string]any{"path": "long.txt"})
	if want := "1: " + strings.Repeat("y", 2000) + " … [line cut at 2000 of 2500 chars]\n2: short"; out != want {
		t.Errorf("long line: got %q", out[len(out)-80:])
	}

	if got := ftOK(t, env, "read_file", map[string]any{"path": "empty.txt"}); got != "empty.txt is empty." {
		t.Errorf("got %q", got)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "nope.txt"}, "No such file: nope.txt"},
		{map[string]any{"path": "dir"}, "dir is a directory; use list_dir to see what is in it."},
		{map[string]any{"path": "bin.dat"}, "bin.dat is a binary file, not text. Use bash"},
		{map[string]any{"path": "a.txt", "offset": 0}, "offset must be 1 or more"},
		{map[string]any{"path": "a.txt", "limit": 0}, "limit must be 1 or more"},
		{map[string]any{"path": "a.txt", "offset": 9}, "offset 9 is past the end of a.txt (3 lines)."},
		{map[string]any{"path": "../outside.txt"}, "path escapes workspace"},
		{map[string]any{"path": "/etc/hostname"}, "path escapes workspace"},
		{map[string]any{}, "path is required"},
	} {
		if msg := ftFail(t, env, "read_file", c.in); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%v: got %q, want prefix %q", c.in, msg, c.want)
		}
	}
}

func TestReadFileStopsAtOutputBudget(t *testing.T) {
	line := strings.Repeat("z", 100)
	env := ftEnv(t, map[string]string{"wide.txt": strings.Repeat(line+"\n", 1000)})
	out := ftOK(t, env, "read_file", map[string]any{"path": "wide.txt"})
	if len(out) > ResultCap {
		t.Fatalf("output %d chars exceeds the cap", len(out))
	}
	ftContains(t, out, "of 1000; the output limit was reached. Continue with offset=")
	if strings.Contains(out, "truncated") {
		t.Error("read_file should stop on a line boundary, not be cut by Cap")
	}
}

func TestReadFileRefusesSymlinkOutside(t *testing.T) {
	outside := t.TempDir()
	ftWrite(t, outside, map[string]string{"secret.txt": "top secret"})
	env := ftEnv(t, nil)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(env.Root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	msg := ftFail(t, env, "read_file", map[string]any{"path": "link.txt"})
	if strings.Contains(msg, "top secret") || !strings.Contains(msg, "escapes workspace") {
		t.Errorf("got %q", msg)
	}
}

func TestReadManyFiles(t *testing.T) {
	env := ftEnv(t, map[string]string{"a.txt": "A\n", "b.txt": "B1\nB2\nB3\n", "bin": "\x00"})
	out := ftOK(t, env, "read_many_files", map[string]any{"files": []map[string]any{
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
	if msg := ftFail(t, env, "read_many_files", map[string]any{"files": []map[string]any{}}); !strings.Contains(msg, "1 to 20") {
		t.Errorf("got %q", msg)
	}
	many := make([]map[string]any, 21)
	for i := range many {
		many[i] = map[string]any{"path": "a.txt"}
	}
	if msg := ftFail(t, env, "read_many_files", map[string]any{"files": many}); !strings.Contains(msg, "got 21") {
		t.Errorf("got %q", msg)
	}
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
	env := ftEnv(t, files)
	out := ftOK(t, env, "read_many_files", map[string]any{"files": req})
	if len(out) > ResultCap {
		t.Fatalf("%d chars", len(out))
	}
	for i := range 4 {
		ftContains(t, out, fmt.Sprintf("===== f%d.txt =====\n1: line 1\n", i))
	}
	if c := strings.Count(out, "the output limit was reached"); c != 4 {
		t.Errorf("%d of 4 blocks have a continue hint", c)
	}
}

func TestWriteFile(t *testing.T) {
	env := ftEnv(t, map[string]string{"old.txt": "one\ntwo\n", "d/": ""})
	out := ftOK(t, env, "write_file", map[string]any{"path": "new/deep/f.txt", "content": "héllo\n"})
	if out != "Wrote 6 chars to new/deep/f.txt (new file)" {
		t.Errorf("got %q", out)
	}
	if got := ftRead(t, env, "new/deep/f.txt"); got != "héllo\n" {
		t.Errorf("on disk %q", got)
	}
	if err := os.Chmod(filepath.Join(env.Root, "old.txt"), 0o750); err != nil {
		t.Fatal(err)
	}
	if out := ftOK(t, env, "write_file", map[string]any{"path": "old.txt", "content": "three\n"}); out != "Wrote 6 chars to old.txt" {
		t.Errorf("got %q", out)
	}
	fi, _ := os.Stat(filepath.Join(env.Root, "old.txt"))
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want the old file's 0750", fi.Mode().Perm())
	}
	if out := ftOK(t, env, "write_file", map[string]any{"path": "old.txt", "content": "three\n"}); out != "old.txt already has this content; nothing was written." {
		t.Errorf("got %q", out)
	}
	if msg := ftFail(t, env, "write_file", map[string]any{"path": "d", "content": "x"}); msg != "d is a directory; give a file path." {
		t.Errorf("got %q", msg)
	}
	if msg := ftFail(t, env, "write_file", map[string]any{"path": "x.txt"}); !strings.Contains(msg, "both path and content") {
		t.Errorf("got %q", msg)
	}
	// Empty content is a valid file.
	ftOK(t, env, "write_file", map[string]any{"path": "empty.txt", "content": ""})
	if got := ftRead(t, env, "empty.txt"); got != "" {
		t.Errorf("got %q", got)
	}
	entries, _ := os.ReadDir(env.Root)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".shiro-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileKeepsCRLF(t *testing.T) {
	env := ftEnv(t, map[string]string{"w.txt": "a\r\nb\r\n"})
	out := ftOK(t, env, "write_file", map[string]any{"path": "w.txt", "content": "x\ny\nz\n"})
	ftContains(t, out, "kept the file's CRLF line endings")
	if got := ftRead(t, env, "w.txt"); got != "x\r\ny\r\nz\r\n" {
		t.Errorf("on disk %q", got)
	}
}

func TestWriteFileWarnsOnCollapsedRewrite(t *testing.T) {
	lines := numbered(1, 40)
	env := ftEnv(t, map[string]string{"c.txt": lines})
	collapsed := strings.ReplaceAll(lines, "\n", " ")
	out := ftOK(t, env, "write_file", map[string]any{"path": "c.txt", "content": collapsed})
	ftContains(t, out, "Warning: c.txt went from 40 lines to 1 at about the same size")
	// A real shrink is not flagged.
	out = ftOK(t, env, "write_file", map[string]any{"path": "c.txt", "content": "short\n"})
	if strings.Contains(out, "Warning") {
		t.Errorf("unexpected warning: %s", out)
	}
}

func TestWriteFileJail(t *testing.T) {
	outside := t.TempDir()
	env := ftEnv(t, nil)
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "ghost.txt"), filepath.Join(env.Root, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../escape.txt", filepath.Join(outside, "abs.txt"), "out/via-link.txt", "dangling", "a/../../escape2.txt"} {
		msg := ftFail(t, env, "write_file", map[string]any{"path": p, "content": "pwned"})
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

func TestWriteFileAtomicFailureLeavesTargetAlone(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(target, []byte("original"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The directory cannot take the temp file: nothing may change.
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x.txt"), []byte("x"), 0o644); err == nil {
		t.Error("expected an error for a missing parent")
	}
	if err := WriteFileAtomic(dir, []byte("x"), 0o644); err == nil {
		t.Error("expected an error for a directory target")
	}
	if err := WriteFileAtomic(target, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(target)
	if b, _ := os.ReadFile(target); string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", b, fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("leftovers: %v", entries)
	}
}

func TestFileToolsRefuseFIFOs(t *testing.T) {
	env := ftEnv(t, nil)
	fifo := filepath.Join(env.Root, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skip("cannot make a FIFO here:", err)
	}
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{
		{"read_file", map[string]any{"path": "pipe"}},
		{"edit_file", map[string]any{"path": "pipe", "oldString": "a", "newString": "b"}},
		{"write_file", map[string]any{"path": "pipe", "content": "x"}},
	} {
		if msg := ftFail(t, env, c.tool, c.in); !strings.Contains(msg, "pipe is not a regular file") {
			t.Errorf("%s: got %q", c.tool, msg)
		}
	}
	// grep must not block on it either.
	ftWrite(t, env.Root, map[string]string{"a.txt": "needle\n"})
	if out := ftOK(t, env, "grep", map[string]any{"pattern": "needle"}); out != "a.txt:1: needle" {
		t.Errorf("got %q", out)
	}
}
