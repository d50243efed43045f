package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestInsertLines(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	got := family.Ok(t, env, "insert_lines", map[string]any{"path": "a.txt", "line": 2, "text": "new A\nnew B"})
	if got != "Inserted 2 lines before line 2 in a.txt (now 5 lines).\n1: one\n2: new A\n3: new B\n4: two" {
		t.Errorf("result: %q", got)
	}
	if s := tooltest.ReadFile(t, env.Root, "a.txt"); s != "one\nnew A\nnew B\ntwo\nthree\n" {
		t.Errorf("file: %q", s)
	}
	family.Ok(t, env, "insert_lines", map[string]any{"path": "a.txt", "line": 6, "text": "last\n"})
	family.Ok(t, env, "insert_lines", map[string]any{"path": "a.txt", "line": 1, "text": "\n"})
	if s := tooltest.ReadFile(t, env.Root, "a.txt"); s != "\none\nnew A\nnew B\ntwo\nthree\nlast\n" {
		t.Errorf("file: %q", s)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt", "line": 9, "text": "x"}, "line must be from 1 to 8 (8 appends; a.txt has 7 lines); got 9"},
		{map[string]any{"path": "nope.txt", "line": 1, "text": "x"}, "No such file: nope.txt"},
	} {
		if msg := family.Fail(t, env, "insert_lines", c.in); msg != c.want {
			t.Errorf("%v: %q, want %q", c.in, msg, c.want)
		}
	}
	// What the schema or the check refuses never runs.
	for _, c := range []struct {
		in    map[string]any
		words []string
	}{
		{map[string]any{"path": "a.txt", "line": 0, "text": "x"}, []string{"line", "1", "0"}},
		{map[string]any{"path": "a.txt", "text": "x"}, []string{"missing", "line"}},
		{map[string]any{"path": "a.txt", "line": 1}, []string{"missing", "text"}},
		{map[string]any{"path": "a.txt", "line": 1, "text": ""}, []string{`invalid arguments: text is empty; to add a blank line, pass "\n".`}},
		{map[string]any{"path": "", "line": 1, "text": "x"}, []string{"invalid arguments: path is required."}},
	} {
		tooltest.Contains(t, family.Refuse(t, env, "insert_lines", c.in).Error(), c.words...)
	}
}

func TestDeleteAndReplaceLines(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"a.txt": "1\n2\n3\n4\n5\n"})
	got := family.Ok(t, env, "delete_lines", map[string]any{"path": "a.txt", "start": 2, "end": 3})
	if got != "Deleted lines 2-3 in a.txt (now 3 lines).\n1: 1\n2: 4" {
		t.Errorf("delete result: %q", got)
	}
	got = family.Ok(t, env, "replace_lines", map[string]any{"path": "a.txt", "start": 3, "end": 3, "text": "five\nsix\n"})
	if got != "Replaced lines 3-3 with 2 lines in a.txt (now 4 lines).\n2: 4\n3: five\n4: six" {
		t.Errorf("replace result: %q", got)
	}
	if s := tooltest.ReadFile(t, env.Root, "a.txt"); s != "1\n4\nfive\nsix\n" {
		t.Errorf("file: %q", s)
	}
	family.Ok(t, env, "replace_lines", map[string]any{"path": "a.txt", "start": 1, "end": 4, "text": "all new"})
	if s := tooltest.ReadFile(t, env.Root, "a.txt"); s != "all new\n" {
		t.Errorf("replace all: %q", s)
	}
	for _, c := range []struct {
		tool string
		in   map[string]any
		want string
	}{
		{"delete_lines", map[string]any{"path": "a.txt", "start": 1, "end": 1}, "Refusing to delete every line of a.txt; use delete_file to remove the file, or write_file to empty it."},
		{"delete_lines", map[string]any{"path": "a.txt", "start": 1, "end": 2}, "start and end must satisfy 1 <= start <= end <= 1 (a.txt has 1 lines); got start 1, end 2"},
		{"replace_lines", map[string]any{"path": "a.txt", "start": 2, "end": 1, "text": "x"}, "start and end must satisfy 1 <= start <= end <= 1 (a.txt has 1 lines); got start 2, end 1"},
	} {
		if msg := family.Fail(t, env, c.tool, c.in); msg != c.want {
			t.Errorf("%s %v: %q, want %q", c.tool, c.in, msg, c.want)
		}
	}
	for _, c := range []struct {
		tool  string
		in    map[string]any
		words []string
	}{
		{"delete_lines", map[string]any{"path": "a.txt", "start": 0, "end": 1}, []string{"start", "1", "0"}},
		{"delete_lines", map[string]any{"path": "a.txt", "start": 1}, []string{"missing", "end"}},
		{"replace_lines", map[string]any{"path": "a.txt", "start": 1, "end": 1, "text": ""}, []string{`invalid arguments: text is empty; to add a blank line, pass "\n".`}},
	} {
		tooltest.Contains(t, family.Refuse(t, env, c.tool, c.in).Error(), c.words...)
	}
}

func TestAppendPrepend(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"a.txt": "middle", "empty.txt": ""})
	got := family.Ok(t, env, "append_file", map[string]any{"path": "a.txt", "text": "end\n"})
	if got != "Appended 1 line in a.txt (now 2 lines).\n1: middle\n2: end" {
		t.Errorf("append: %q", got)
	}
	// The file had no final newline, and still has none.
	if s := tooltest.ReadFile(t, env.Root, "a.txt"); s != "middle\nend" {
		t.Errorf("after append: %q", s)
	}
	family.Ok(t, env, "prepend_file", map[string]any{"path": "a.txt", "text": "#!/bin/sh\n# top"})
	if s := tooltest.ReadFile(t, env.Root, "a.txt"); s != "#!/bin/sh\n# top\nmiddle\nend" {
		t.Errorf("after prepend: %q", s)
	}
	family.Ok(t, env, "append_file", map[string]any{"path": "empty.txt", "text": "first"})
	if s := tooltest.ReadFile(t, env.Root, "empty.txt"); s != "first\n" {
		t.Errorf("empty file: %q", s)
	}
	if msg := family.Fail(t, env, "append_file", map[string]any{"path": "new.txt", "text": "x"}); msg != "No such file: new.txt" {
		t.Errorf("missing file: %q", msg)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "new.txt")); err == nil {
		t.Error("append_file created a file")
	}
}

// Every line tool keeps CRLF files CRLF, and a mixed file's untouched lines
// keep their own endings.
func TestLineToolsKeepLineEndings(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{
		"crlf.txt":  "a\r\nb\r\nc\r\n",
		"mixed.txt": "a\r\nb\nc\r\nd\r\n",
	})
	steps := []struct {
		tool string
		in   map[string]any
		want string
	}{
		{"insert_lines", map[string]any{"path": "crlf.txt", "line": 2, "text": "x\ny\n"}, "a\r\nx\r\ny\r\nb\r\nc\r\n"},
		{"replace_lines", map[string]any{"path": "crlf.txt", "start": 2, "end": 3, "text": "z\r\n"}, "a\r\nz\r\nb\r\nc\r\n"},
		{"delete_lines", map[string]any{"path": "crlf.txt", "start": 1, "end": 1}, "z\r\nb\r\nc\r\n"},
		{"append_file", map[string]any{"path": "crlf.txt", "text": "end"}, "z\r\nb\r\nc\r\nend\r\n"},
		{"prepend_file", map[string]any{"path": "crlf.txt", "text": "top\nline"}, "top\r\nline\r\nz\r\nb\r\nc\r\nend\r\n"},
		{"insert_lines", map[string]any{"path": "mixed.txt", "line": 4, "text": "new"}, "a\r\nb\nc\r\nnew\r\nd\r\n"},
		{"replace_lines", map[string]any{"path": "mixed.txt", "start": 1, "end": 1, "text": "A"}, "A\r\nb\nc\r\nnew\r\nd\r\n"},
	}
	for _, s := range steps {
		family.Ok(t, env, s.tool, s.in)
		path := s.in["path"].(string)
		if got := tooltest.ReadFile(t, env.Root, path); got != s.want {
			t.Errorf("%s %v:\n got %q\nwant %q", s.tool, s.in, got, s.want)
		}
	}
}

// A refused edit leaves the bytes as they were; a done edit replaces the
// file by rename (a new inode), keeps its mode and leaves no temp file.
func TestLineToolsAreAtomic(t *testing.T) {
	t.Parallel()
	orig := "keep\r\nthese\nbytes"
	env := wstest.Env(t, map[string]string{"a.sh": orig})
	p := filepath.Join(env.Root, "a.sh")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{
		{"insert_lines", map[string]any{"path": "a.sh", "line": 99, "text": "x"}},
		{"delete_lines", map[string]any{"path": "a.sh", "start": 1, "end": 3}},
		{"replace_lines", map[string]any{"path": "a.sh", "start": 3, "end": 4, "text": "x"}},
	} {
		family.Fail(t, env, c.tool, c.in)
		if got := tooltest.ReadFile(t, env.Root, "a.sh"); got != orig {
			t.Fatalf("%s changed the file: %q", c.tool, got)
		}
	}
	tooltest.Contains(t, family.Refuse(t, env, "replace_lines", map[string]any{"path": "a.sh", "start": 1, "end": 1, "text": 5}).Error(), "text")
	if got := tooltest.ReadFile(t, env.Root, "a.sh"); got != orig {
		t.Fatalf("a refused call changed the file: %q", got)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	family.Ok(t, env, "replace_lines", map[string]any{"path": "a.sh", "start": 2, "end": 2, "text": "those"})
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := tooltest.ReadFile(t, env.Root, "a.sh"); got != "keep\r\nthose\nbytes" {
		t.Errorf("edit: %q", got)
	}
	if after.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750", after.Mode().Perm())
	}
	if os.SameFile(before, after) {
		t.Error("the file was rewritten in place, not replaced by rename")
	}
	entries, _ := os.ReadDir(env.Root)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestLineToolsJail(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, nil)
	outside := t.TempDir()
	target := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(target, []byte("safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(env.Root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{target, "../" + filepath.Base(outside) + "/victim.txt", "link/victim.txt"} {
		for _, tool := range []string{"insert_lines", "append_file", "prepend_file"} {
			in := map[string]any{"path": p, "text": "pwned"}
			if tool == "insert_lines" {
				in["line"] = 1
			}
			if msg := family.Fail(t, env, tool, in); !strings.HasPrefix(msg, "path escapes workspace") {
				t.Errorf("%s %s: %q", tool, p, msg)
			}
		}
		if msg := family.Fail(t, env, "delete_lines", map[string]any{"path": p, "start": 1, "end": 1}); !strings.HasPrefix(msg, "path escapes workspace") {
			t.Errorf("delete_lines %s: %q", p, msg)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "safe\n" {
		t.Errorf("outside file changed: %q", b)
	}
}

func TestLineDocRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "a\n", "a\r\n", "a\r\nb", "\n\n", "a\rb\n", "x\r\n\r\n"} {
		if got := string(parseLineDoc([]byte(s)).bytes()); got != s {
			t.Errorf("round trip %q: %q", s, got)
		}
	}
}
