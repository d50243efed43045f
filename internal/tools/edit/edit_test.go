package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestEditFileExact(t *testing.T) {
	src := "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	env := wstest.Env(t, map[string]string{"a.go": src})
	out := family.Ok(t, env, "edit_file", map[string]any{"path": "a.go", "oldString": "\treturn 1\n", "newString": "\tx := 2\n\treturn x\n"})
	if !strings.HasPrefix(out, "Edited a.go: 1 replacement, lines 4-5\n") {
		t.Errorf("result %q", out)
	}
	tooltest.Contains(t, out, "@@", "-\treturn 1", "+\tx := 2", "+\treturn x")
	if got, want := tooltest.ReadFile(t, env.Root, "a.go"), "package a\n\nfunc A() int {\n\tx := 2\n\treturn x\n}\n"; got != want {
		t.Errorf("on disk %q", got)
	}
}

func TestEditFileReplaceAllAndErrors(t *testing.T) {
	env := wstest.Env(t, map[string]string{"r.txt": "foo bar foo\nfoo\n", "bin": "a\x00b", "dir/": ""})
	msg := family.Fail(t, env, "edit_file", map[string]any{"path": "r.txt", "oldString": "foo", "newString": "baz"})
	if msg != "oldString appears 3 times in r.txt. Add surrounding context or set replaceAll." {
		t.Errorf("got %q", msg)
	}
	if tooltest.ReadFile(t, env.Root, "r.txt") != "foo bar foo\nfoo\n" {
		t.Fatal("a failed edit changed the file")
	}
	out := family.Ok(t, env, "edit_file", map[string]any{"path": "r.txt", "oldString": "foo", "newString": "baz", "replaceAll": true})
	if !strings.HasPrefix(out, "Edited r.txt: 3 replacements, line 1, line 1, line 2") {
		t.Errorf("got %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "r.txt"); got != "baz bar baz\nbaz\n" {
		t.Errorf("on disk %q", got)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "r.txt", "oldString": "baz", "newString": "baz"}, "oldString and newString are identical; there is nothing to change."},
		{map[string]any{"path": "r.txt", "oldString": "", "newString": "x"}, "oldString is empty. To create a file or replace it whole, use write_file."},
		{map[string]any{"path": "nope.txt", "oldString": "a", "newString": "b"}, "No such file: nope.txt. To create a file, use write_file."},
		{map[string]any{"path": "dir", "oldString": "a", "newString": "b"}, "dir is a directory, not a file."},
		{map[string]any{"path": "bin", "oldString": "a", "newString": "b"}, "bin is a binary file (it has a NUL byte in its first 8 KiB); only text files can be edited."},
		{map[string]any{"path": "../x", "oldString": "a", "newString": "b"}, "path escapes workspace: ../x"},
		{map[string]any{"path": "r.txt", "oldString": "bar \n", "newString": "bar\n"}, "oldString not found"},
		{map[string]any{"path": "r.txt", "oldString": "bar baz\n ", "newString": "bar baz\n"}, "The edit leaves r.txt unchanged; nothing was written."},
	} {
		if msg := family.Fail(t, env, "edit_file", c.in); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%v: got %q, want %q", c.in, msg, c.want)
		}
	}
}

func TestEditFileNotFoundDiagnostic(t *testing.T) {
	env := wstest.Env(t, map[string]string{"d.go": "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n"})
	msg := family.Fail(t, env, "edit_file", map[string]any{"path": "d.go", "oldString": "if y {\n    return", "newString": "z"})
	want := "oldString not found in d.go.\n" +
		"Closest text in the file (· is a space, → a tab, ␍ a carriage return):\n" +
		"2: →if·x·{\n" +
		"3: →→return\n" +
		"Your oldString begins:\n" +
		"if·y·{\n" +
		"····return"
	if msg != want {
		t.Errorf("got:\n%s\nwant:\n%s", msg, want)
	}
	msg = family.Fail(t, env, "edit_file", map[string]any{"path": "d.go", "oldString": "completely unrelated words", "newString": "z"})
	tooltest.Contains(t, msg, "oldString not found in d.go.\nNo line of the file resembles its first line")
}

func TestEditFileFallbacks(t *testing.T) {
	cases := []struct {
		name, file, old, new, want, level string
	}{
		{
			name:  "trailing whitespace",
			file:  "a  \nb\t\nc\n",
			old:   "a\nb\n",
			new:   "A\nB\n",
			want:  "A\nB\nc\n",
			level: "ignoring trailing whitespace",
		},
		{
			name:  "indentation, re-indented to tabs",
			file:  "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
			old:   "    if x {\n        return\n    }",
			new:   "    if y {\n        y()\n        return\n    }",
			want:  "func f() {\n\tif y {\n\t\ty()\n\t\treturn\n\t}\n}\n",
			level: "ignoring indentation and trailing whitespace",
		},
		{
			name:  "typographic punctuation",
			file:  "say(“it’s done – really”)\n",
			old:   `say("it's done - really")`,
			new:   `say("finished")`,
			want:  "say(\"finished\")\n",
			level: "treating typographic dashes, quotes and spaces as ASCII",
		},
		{
			name:  "non-breaking space",
			file:  "x\u00a0=\u00a01\n",
			old:   "x = 1",
			new:   "x = 2",
			want:  "x = 2\n",
			level: "typographic",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := wstest.Env(t, map[string]string{"f": c.file})
			out := family.Ok(t, env, "edit_file", map[string]any{"path": "f", "oldString": c.old, "newString": c.new})
			tooltest.Contains(t, out, "(no exact match; matched ", c.level)
			if got := tooltest.ReadFile(t, env.Root, "f"); got != c.want {
				t.Errorf("on disk %q, want %q", got, c.want)
			}
		})
	}
}

func TestEditFileFallbackMustBeUnique(t *testing.T) {
	file := "a()  \nb()\na()\t\n"
	env := wstest.Env(t, map[string]string{"f": file})
	msg := family.Fail(t, env, "edit_file", map[string]any{"path": "f", "oldString": "a() \n", "newString": "c()\n"})
	want := "oldString is not in f exactly; ignoring trailing whitespace it appears 2 times. Copy the exact text, with more surrounding context, from read_file."
	if msg != want {
		t.Errorf("got %q", msg)
	}
	if tooltest.ReadFile(t, env.Root, "f") != file {
		t.Error("file changed")
	}
}

func TestEditFileKeepsCRLF(t *testing.T) {
	env := wstest.Env(t, map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n"})
	family.Ok(t, env, "edit_file", map[string]any{"path": "w.txt", "oldString": "two\nthree", "newString": "2\n2.5\n3"})
	if got := tooltest.ReadFile(t, env.Root, "w.txt"); got != "one\r\n2\r\n2.5\r\n3\r\n" {
		t.Errorf("on disk %q", got)
	}
	// oldString given with CRLF matches too.
	family.Ok(t, env, "edit_file", map[string]any{"path": "w.txt", "oldString": "one\r\n2", "newString": "1\r\n2"})
	if got := tooltest.ReadFile(t, env.Root, "w.txt"); got != "1\r\n2\r\n2.5\r\n3\r\n" {
		t.Errorf("on disk %q", got)
	}
}

func TestEditFileMixedLineEndings(t *testing.T) {
	// Lines 1-2 LF, 3-4 CRLF, 5 LF, and no newline at the end.
	file := "a\nb\nc\r\nd\r\ne\nf"
	env := wstest.Env(t, map[string]string{"m.txt": file})
	// Inside the CRLF block: the new lines take CRLF; the rest keep theirs.
	family.Ok(t, env, "edit_file", map[string]any{"path": "m.txt", "oldString": "c\nd\n", "newString": "C\nX\nD\n"})
	if got, want := tooltest.ReadFile(t, env.Root, "m.txt"), "a\nb\nC\r\nX\r\nD\r\ne\nf"; got != want {
		t.Errorf("on disk %q, want %q", got, want)
	}
	// Within one LF line: a new line break follows that line's ending.
	family.Ok(t, env, "edit_file", map[string]any{"path": "m.txt", "oldString": "e", "newString": "e1\ne2"})
	if got, want := tooltest.ReadFile(t, env.Root, "m.txt"), "a\nb\nC\r\nX\r\nD\r\ne1\ne2\nf"; got != want {
		t.Errorf("on disk %q, want %q", got, want)
	}
	// A lone CR is text, not a line ending.
	env = wstest.Env(t, map[string]string{"cr.txt": "x\ry\n"})
	family.Ok(t, env, "edit_file", map[string]any{"path": "cr.txt", "oldString": "y", "newString": "z"})
	if got := tooltest.ReadFile(t, env.Root, "cr.txt"); got != "x\rz\n" {
		t.Errorf("on disk %q", got)
	}
}

func TestEditFileKeepsModeAndStaysInJail(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"o.txt": "secret"})
	env := wstest.Env(t, map[string]string{"run.sh": "echo hi\n"})
	if err := os.Chmod(filepath.Join(env.Root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	family.Ok(t, env, "edit_file", map[string]any{"path": "run.sh", "oldString": "hi", "newString": "bye"})
	fi, _ := os.Stat(filepath.Join(env.Root, "run.sh"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if err := os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(env.Root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"link", filepath.Join(outside, "o.txt")} {
		if msg := family.Fail(t, env, "edit_file", map[string]any{"path": p, "oldString": "secret", "newString": "x"}); !strings.Contains(msg, "escapes workspace") {
			t.Errorf("%s: got %q", p, msg)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "o.txt")); string(b) != "secret" {
		t.Error("file outside changed")
	}
}

func TestMultiEdit(t *testing.T) {
	src := "alpha\nbeta\ngamma\n"
	env := wstest.Env(t, map[string]string{"m.txt": src})
	out := family.Ok(t, env, "multi_edit", map[string]any{"path": "m.txt", "edits": []map[string]any{
		{"oldString": "alpha", "newString": "ALPHA"},
		{"oldString": "ALPHA\nbeta", "newString": "ALPHA\nBETA"}, // sees the first edit's result
		{"oldString": "a", "newString": "4", "replaceAll": true},
	}})
	if !strings.HasPrefix(out, "Edited m.txt: 3 edits, 4 replacements\n") {
		t.Errorf("got %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "m.txt"); got != "ALPHA\nBETA\ng4mm4\n" {
		t.Errorf("on disk %q", got)
	}
}

func TestMultiEditAllOrNothing(t *testing.T) {
	src := "one\ntwo\nthree\n"
	env := wstest.Env(t, map[string]string{"m.txt": src})
	before, _ := os.ReadFile(filepath.Join(env.Root, "m.txt"))
	cases := []struct {
		edits []map[string]any
		want  string
	}{
		{[]map[string]any{{"oldString": "one", "newString": "1"}, {"oldString": "zzz", "newString": "x"}},
			"edit 2: oldString not found in m.txt. No edits were applied.\n"},
		{[]map[string]any{{"oldString": "o", "newString": "0"}},
			"edit 1: oldString appears 2 times in m.txt. Add surrounding context or set replaceAll. No edits were applied."},
		{[]map[string]any{{"oldString": "one", "newString": "1"}, {"oldString": "1", "newString": "one"}},
			"The edits leave m.txt unchanged; nothing was written."},
		{[]map[string]any{{"oldString": "two", "newString": "two"}},
			"edit 1: oldString and newString are identical; there is nothing to change. No edits were applied."},
	}
	for _, c := range cases {
		msg := family.Fail(t, env, "multi_edit", map[string]any{"path": "m.txt", "edits": c.edits})
		if !strings.HasPrefix(msg, c.want) {
			t.Errorf("got %q, want %q", msg, c.want)
		}
		after, _ := os.ReadFile(filepath.Join(env.Root, "m.txt"))
		if string(after) != string(before) {
			t.Fatalf("file changed on disk after a failed multi_edit: %q", after)
		}
	}
	// No edits at all is refused before the call runs.
	tooltest.Contains(t, family.Refuse(t, env, "multi_edit", map[string]any{"path": "m.txt", "edits": []map[string]any{}}).Error(), "edits", "0", "1")
}
