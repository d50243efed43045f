package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestFileInfo(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"a.txt": "one\ntwo\nthree", "b.bin": "x\x00y", "dir/x": "", "empty": ""})
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(env.Root, "a.txt"), when, when); err != nil {
		t.Fatal(err)
	}
	got := family.Ok(t, env, "file_info", map[string]any{"path": "a.txt"})
	want := "path: a.txt\ntype: file\nsize: 13 bytes (13 B)\ncontent: text\nlines: 3\nmode: -rw-r--r--\nmodified: " + when.Local().Format(time.RFC3339)
	if got != want {
		t.Errorf("a.txt:\n got %q\nwant %q", got, want)
	}
	got = family.Ok(t, env, "file_info", map[string]any{"path": "b.bin"})
	if !strings.Contains(got, "content: binary\n") || strings.Contains(got, "lines:") {
		t.Errorf("b.bin: %q", got)
	}
	got = family.Ok(t, env, "file_info", map[string]any{"path": "dir"})
	if !strings.HasPrefix(got, "path: dir\ntype: directory\nentries: 1\n") {
		t.Errorf("dir: %q", got)
	}
	if got := family.Ok(t, env, "file_info", map[string]any{"path": "empty"}); !strings.Contains(got, "lines: 0") {
		t.Errorf("empty: %q", got)
	}
	if msg := family.Fail(t, env, "file_info", map[string]any{"path": "nope"}); msg != "No such file: nope" {
		t.Errorf("missing: %q", msg)
	}
	if msg := family.Fail(t, env, "file_info", map[string]any{"path": "/etc/passwd"}); !strings.HasPrefix(msg, "path escapes workspace") {
		t.Errorf("jail: %q", msg)
	}
	if msg := family.Refuse(t, env, "file_info", map[string]any{"path": ""}).Error(); msg != "invalid arguments: path is required." {
		t.Errorf("empty path: %q", msg)
	}
}

func TestCountLines(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".gitignore": "gen/\n",
		"a.go":       "1\n2\n3\n",
		"b.go":       "1\n2",
		"c.txt":      "1\n",
		"gen/x.go":   "1\n",
		"bin.dat":    "\x00\n\n",
		"sub/d.go":   "",
	}
	env := wstest.Env(t, files)
	got := family.Ok(t, env, "count_lines", nil)
	want := "1\t.gitignore\n3\ta.go\n2\tb.go\n1\tc.txt\n0\tsub/d.go\n7\ttotal (5 files)\n[1 binary files skipped]"
	if got != want {
		t.Errorf("all:\n got %q\nwant %q", got, want)
	}
	if got := family.Ok(t, env, "count_lines", map[string]any{"pattern": "*.go"}); got != "3\ta.go\n2\tb.go\n0\tsub/d.go\n5\ttotal (3 files)" {
		t.Errorf("*.go: %q", got)
	}
	if got := family.Ok(t, env, "count_lines", map[string]any{"path": "sub"}); got != "0\tsub/d.go\n0\ttotal (1 files)" {
		t.Errorf("sub: %q", got)
	}
	if got := family.Ok(t, env, "count_lines", map[string]any{"path": "b.go"}); got != "2\tb.go" {
		t.Errorf("file: %q", got)
	}
	if got := family.Ok(t, env, "count_lines", map[string]any{"pattern": "*.rs"}); got != "No text files under . match." {
		t.Errorf("none: %q", got)
	}
	if msg := family.Fail(t, env, "count_lines", map[string]any{"path": "bin.dat"}); msg != "bin.dat is a binary file; it has no lines to count." {
		t.Errorf("binary: %q", msg)
	}
	if msg := family.Fail(t, env, "count_lines", map[string]any{"path": "../"}); !strings.HasPrefix(msg, "path escapes workspace") {
		t.Errorf("jail: %q", msg)
	}
	if msg := family.Fail(t, env, "count_lines", map[string]any{"path": "nope"}); msg != "No such file or directory: nope" {
		t.Errorf("missing: %q", msg)
	}
	if msg := family.Refuse(t, env, "count_lines", map[string]any{"pattern": "[a-"}).Error(); msg != "invalid arguments: Invalid glob pattern: [a-" {
		t.Errorf("bad pattern: %q", msg)
	}
}

func TestCountLinesCapsFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 510 {
		files[fmt.Sprintf("f%03d.txt", i)] = "x\n"
	}
	env := wstest.Env(t, files)
	got := family.Ok(t, env, "count_lines", nil)
	if !strings.HasSuffix(got, "500\ttotal (500 files)\n[stopped at 500 files; the total covers those; narrow path or pattern]") {
		t.Errorf("tail: %q", got[len(got)-120:])
	}
}

func TestCountTokens(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"a.txt": strings.Repeat("é", 10), "b.bin": "\x00"})
	if got := family.Ok(t, env, "count_tokens", map[string]any{"text": "abcdefgh"}); got != "~2 tokens in the text (an estimate: 8 characters / 4; real tokenizers differ)" {
		t.Errorf("text: %q", got)
	}
	if got := family.Ok(t, env, "count_tokens", map[string]any{"path": "a.txt"}); got != "~3 tokens in a.txt (an estimate: 10 characters / 4; real tokenizers differ)" {
		t.Errorf("file: %q", got)
	}
	for _, in := range []map[string]any{{}, {"path": "a.txt", "text": "x"}} {
		if msg := family.Refuse(t, env, "count_tokens", in).Error(); msg != "invalid arguments: give either path or text." {
			t.Errorf("%v: %q", in, msg)
		}
	}
	if msg := family.Fail(t, env, "count_tokens", map[string]any{"path": "b.bin"}); msg != "b.bin is a binary file, not text." {
		t.Errorf("binary: %q", msg)
	}
	if msg := family.Fail(t, env, "count_tokens", map[string]any{"path": ""}); msg != "path is required." {
		t.Errorf("empty path: %q", msg)
	}
}
