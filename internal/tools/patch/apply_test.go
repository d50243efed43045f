package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestApplyPatchEveryKind(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		"src/a.go":   "package a\n\nfunc A() int {\n\tx := 1\n\treturn x\n}\n",
		"src/old.go": "package a\n\nconst Old = 1\n",
		"gone.txt":   "bye\n",
	})
	if err := os.Chmod(filepath.Join(env.Root, "src/old.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runPatch(t, env, envelope(
		"*** Add File: docs/notes/new.md\n+# Notes\n+\n+text",
		"*** Update File: src/a.go\n@@ func A() int {\n \tx := 1\n-\treturn x\n+\treturn x + 1",
		"*** Update File: src/old.go\n*** Move to: pkg/renamed.go\n@@\n-const Old = 1\n+const Renamed = 1",
		"*** Delete File: gone.txt",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := "Applied 4 changes:\n" +
		"- added docs/notes/new.md\n" +
		"- updated src/a.go (line 5)\n" +
		"- moved src/old.go -> pkg/renamed.go (updated line 3)\n" +
		"- deleted gone.txt"
	if out != want {
		t.Errorf("result:\n%s\nwant:\n%s", out, want)
	}
	if got := tooltest.ReadFile(t, env.Root, "docs/notes/new.md"); got != "# Notes\n\ntext\n" {
		t.Errorf("added file %q (an Add gets a trailing newline)", got)
	}
	if got := tooltest.ReadFile(t, env.Root, "src/a.go"); got != "package a\n\nfunc A() int {\n\tx := 1\n\treturn x + 1\n}\n" {
		t.Errorf("updated file %q", got)
	}
	if got := tooltest.ReadFile(t, env.Root, "pkg/renamed.go"); got != "package a\n\nconst Renamed = 1\n" {
		t.Errorf("moved file %q", got)
	}
	if fi, err := os.Stat(filepath.Join(env.Root, "pkg/renamed.go")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("moved file lost its mode: %v %v", fi.Mode(), err)
	}
	for _, p := range []string{"src/old.go", "gone.txt"} {
		if _, err := os.Lstat(filepath.Join(env.Root, p)); !os.IsNotExist(err) {
			t.Errorf("%s still exists", p)
		}
	}
	// No temp file, backup or reserved name is left behind.
	for p := range tooltest.Snapshot(t, env.Root) {
		if strings.Contains(p, ".shiro-") {
			t.Errorf("leftover %s", p)
		}
	}
}

func TestApplyPatchPureMoveAndEmptyAdd(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "x\r\ny"})
	out, err := runPatch(t, env, envelope("*** Update File: a.txt\n*** Move to: b/a.txt", "*** Add File: empty.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out != "Applied 2 changes:\n- moved a.txt -> b/a.txt\n- added empty.txt" {
		t.Errorf("result %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "b/a.txt"); got != "x\r\ny" {
		t.Errorf("a pure move changed the content: %q", got)
	}
	if got := tooltest.ReadFile(t, env.Root, "empty.txt"); got != "" {
		t.Errorf("empty Add wrote %q", got)
	}
}

func TestApplyPatchAnchorsNarrowTheSearch(t *testing.T) {
	src := "type A struct{}\n\nfunc (A) Close() error {\n\treturn nil\n}\n\n" +
		"type B struct{}\n\nfunc (B) Close() error {\n\treturn nil\n}\n"
	env := wstest.Env(t, map[string]string{"c.go": src})
	// Without an anchor the lines fit twice: refused.
	msg := fail(t, env, map[string]string{"patch": envelope("*** Update File: c.go\n@@\n-\treturn nil\n+\treturn errClosed")})
	tooltest.Contains(t, msg, "*** Update File: c.go: chunk 1: its old lines fit 2 places, at lines 4, 10;", "No file was changed.")
	// Nested anchors: the type, then its method.
	out := ok(t, env, map[string]string{"patch": envelope("*** Update File: c.go\n@@ type B struct{}\n@@ func (B) Close() error {\n-\treturn nil\n+\treturn errClosed")})
	if out != "Applied 1 change:\n- updated c.go (line 10)" {
		t.Errorf("result %q", out)
	}
	want := strings.Replace(src, "func (B) Close() error {\n\treturn nil", "func (B) Close() error {\n\treturn errClosed", 1)
	if got := tooltest.ReadFile(t, env.Root, "c.go"); got != want {
		t.Errorf("on disk:\n%s", got)
	}
	// An anchor that names only part of a line still finds it; old lines
	// may repeat the anchor line itself.
	out = ok(t, env, map[string]string{"patch": envelope("*** Update File: c.go\n@@ (A) Close\n func (A) Close() error {\n-\treturn nil\n+\treturn errA")})
	if out != "Applied 1 change:\n- updated c.go (line 4)" {
		t.Errorf("result %q", out)
	}
	msg = fail(t, env, map[string]string{"patch": envelope("*** Update File: c.go\n@@ func (C) Close\n-x\n+y")})
	tooltest.Contains(t, msg, `chunk 1: its @@ line "func (C) Close" matches no line from line 1 on`)
}

func TestApplyPatchPureAdditions(t *testing.T) {
	env := wstest.Env(t, map[string]string{"l.txt": "one\ntwo\nthree\n", "n.txt": "last"})
	ok(t, env, map[string]string{"patch": envelope(
		"*** Update File: l.txt\n@@ one\n+one and a half\n@@\n+four",
		"*** Update File: n.txt\n@@\n+more",
	)})
	if got := tooltest.ReadFile(t, env.Root, "l.txt"); got != "one\none and a half\ntwo\nthree\nfour\n" {
		t.Errorf("l.txt %q", got)
	}
	// A file without a final newline keeps lacking one.
	if got := tooltest.ReadFile(t, env.Root, "n.txt"); got != "last\nmore" {
		t.Errorf("n.txt %q", got)
	}
}

func TestApplyPatchEndOfFile(t *testing.T) {
	env := wstest.Env(t, map[string]string{"e.txt": "end\nmiddle\nend\n"})
	out := ok(t, env, map[string]string{"patch": envelope("*** Update File: e.txt\n@@\n-end\n+END\n*** End of File")})
	if out != "Applied 1 change:\n- updated e.txt (line 3)" {
		t.Errorf("result %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "e.txt"); got != "end\nmiddle\nEND\n" {
		t.Errorf("on disk %q", got)
	}
	msg := fail(t, env, map[string]string{"patch": envelope("*** Update File: e.txt\n@@\n-middle\n+x\n*** End of File")})
	tooltest.Contains(t, msg, "chunk 1: its old lines (the ' ' and '-' lines) were not found at the end of the file")
}

func TestApplyPatchKeepsLineEndings(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		"crlf.txt":  "a\r\nb\r\nc\r\n",
		"mixed.txt": "lf\ncrlf\r\nlf2\nend",
		"nofinal":   "p\r\nq",
	})
	patchText := envelope(
		"*** Update File: crlf.txt\n@@\n a\n-b\n+B1\n+B2",
		"*** Update File: mixed.txt\n@@\n-lf2\n+LF2",
		"*** Update File: nofinal\n@@\n p\n-q\n+Q\n+R",
	)
	// CRLF in the patch text itself is read as LF.
	ok(t, env, map[string]string{"patch": strings.ReplaceAll(patchText, "\n", "\r\n")})
	for name, want := range map[string]string{
		"crlf.txt":  "a\r\nB1\r\nB2\r\nc\r\n",
		"mixed.txt": "lf\ncrlf\r\nLF2\nend",
		"nofinal":   "p\r\nQ\r\nR",
	} {
		if got := tooltest.ReadFile(t, env.Root, name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestApplyPatchFallbacks(t *testing.T) {
	for _, c := range []struct {
		name, file, chunk, want, level string
	}{
		{
			name:  "trailing whitespace",
			file:  "a  \nb\t\nc\n",
			chunk: "@@\n a\n-b\n+B",
			want:  "a  \nB\nc\n",
			level: "ignoring trailing whitespace",
		},
		{
			name:  "indentation, re-indented to the file",
			file:  "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
			chunk: "@@\n     if x {\n-        return\n+        log()\n+        return",
			want:  "func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n",
			level: "ignoring indentation and trailing whitespace",
		},
		{
			name:  "typographic punctuation",
			file:  "say(“it’s – fine”)\nnext\n",
			chunk: "@@\n-say(\"it's - fine\")\n+say(\"ok\")",
			want:  "say(\"ok\")\nnext\n",
			level: "ignoring whitespace at line ends and treating typographic dashes, quotes and spaces as ASCII",
		},
	} {
		env := wstest.Env(t, map[string]string{"f.txt": c.file})
		out, err := runPatch(t, env, envelope("*** Update File: f.txt\n"+c.chunk))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !strings.Contains(out, "chunk 1 matched "+c.level+", check the result") {
			t.Errorf("%s: result %q", c.name, out)
		}
		if got := tooltest.ReadFile(t, env.Root, "f.txt"); got != c.want {
			t.Errorf("%s: on disk %q, want %q", c.name, got, c.want)
		}
	}
	// A fallback match must still be unique.
	env := wstest.Env(t, map[string]string{"f.txt": "x \nx\t\n"})
	msg := fail(t, env, map[string]string{"patch": envelope("*** Update File: f.txt\n@@\n-x\n+y")})
	tooltest.Contains(t, msg, "its old lines fit 2 places (ignoring trailing whitespace), at lines 1, 2")
}

func TestApplyPatchChunkErrors(t *testing.T) {
	env := wstest.Env(t, map[string]string{"d.go": "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n"})
	msg := fail(t, env, map[string]string{"patch": envelope("*** Update File: d.go\n@@\n-if y {\n-    return\n+z")})
	want := "*** Update File: d.go: chunk 1: its old lines (the ' ' and '-' lines) were not found.\n" +
		"Closest text in the file (· is a space, → a tab, ␍ a carriage return):\n" +
		"2: →if·x·{\n" +
		"3: →→return\n" +
		"The chunk's old lines begin:\n" +
		"if·y·{\n" +
		"····return\n" +
		"No file was changed."
	if msg != want {
		t.Errorf("got:\n%s\nwant:\n%s", msg, want)
	}
	// Chunks go down the file; one that fits only above the previous is
	// out of order, and says so.
	msg = fail(t, env, map[string]string{"patch": envelope("*** Update File: d.go\n@@\n-\t}\n+\t} // x\n@@\n-\tif x {\n+\tif y {")})
	tooltest.Contains(t, msg, "chunk 2: its old lines are at line 2, above where the search starts (line 5, after the previous chunk or @@ line); chunks must go down the file in order")
	// A patch whose loose match changes nothing is refused.
	env = wstest.Env(t, map[string]string{"s.txt": "x\n"})
	msg = fail(t, env, map[string]string{"patch": envelope("*** Update File: s.txt\n@@\n-x \n+x")})
	tooltest.Contains(t, msg, "the patch leaves s.txt unchanged")
}

// Every refusal leaves the workspace exactly as it was, even when earlier
// operations of the same patch were fine.
func TestApplyPatchRefusals(t *testing.T) {
	outside := t.TempDir()
	files := map[string]string{
		"a.txt":    "alpha\n",
		"b.txt":    "beta\n",
		"bin.dat":  "a\x00b\n",
		"dir/":     "",
		"file":     "not a directory\n",
		"dup.txt":  "one\ntwo\none\ntwo\n",
		"keep.txt": "untouched\n",
	}
	ok := "*** Update File: keep.txt\n@@\n-untouched\n+touched"
	for _, c := range []struct{ name, section, want string }{
		{"add onto existing", "*** Add File: a.txt\n+x", "*** Add File: a.txt: a.txt already exists; change it with \"*** Update File:\", or delete it first"},
		{"move onto existing", "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-alpha\n+x", "cannot move a.txt to b.txt: b.txt already exists"},
		{"move onto itself", "*** Update File: a.txt\n*** Move to: ./a.txt", `"*** Move to: ./a.txt" names the file itself`},
		{"outside by ..", "*** Add File: ../evil.txt\n+x", "*** Add File: ../evil.txt: path escapes workspace: ../evil.txt"},
		{"outside absolute", "*** Add File: " + filepath.Join(outside, "x") + "\n+x", "path escapes workspace"},
		{"outside via symlink", "*** Add File: out/x.txt\n+x", "path escapes workspace: out/x.txt"},
		{"update via symlink", "*** Update File: out/secret.txt\n@@\n-s\n+t", "path escapes workspace"},
		{"delete via symlink dir", "*** Delete File: out/secret.txt", "path escapes workspace: out/secret.txt"},
		{"move target outside", "*** Update File: a.txt\n*** Move to: ../moved.txt", "path escapes workspace: ../moved.txt"},
		{"same file twice", "*** Update File: a.txt\n@@\n-alpha\n+x\n*** Delete File: ./a.txt", `"*** Update File: a.txt" and "*** Delete File: ./a.txt" both touch a.txt; a patch may touch each file once`},
		{"move target touched again", "*** Update File: a.txt\n*** Move to: c.txt\n*** Add File: c.txt\n+x", `"*** Move to: c.txt" and "*** Add File: c.txt" both touch c.txt`},
		{"update missing", "*** Update File: nope.txt\n@@\n-x\n+y", "*** Update File: nope.txt: No such file: nope.txt. To create it, use \"*** Add File:\"."},
		{"delete missing", "*** Delete File: nope.txt", "*** Delete File: nope.txt: No such file: nope.txt"},
		{"delete directory", "*** Delete File: dir", "dir is a directory; apply_patch deletes one file at a time"},
		{"update directory", "*** Update File: dir\n@@\n-x\n+y", "dir is a directory, not a file"},
		{"update binary", "*** Update File: bin.dat\n@@\n-a\n+b", "bin.dat is a binary file (it has a NUL byte in its first 8 KiB); apply_patch changes text files only"},
		{"add under a file", "*** Add File: file/x.txt\n+x", "cannot create file/x.txt: part of its directory path is a file, not a directory"},
		{"chunk not found", "*** Update File: a.txt\n@@\n-omega\n+x", "chunk 1: its old lines (the ' ' and '-' lines) were not found"},
		{"chunk ambiguous", "*** Update File: dup.txt\n@@\n one\n-two\n+2", "chunk 1: its old lines fit 2 places, at lines 1, 3"},
		{"second chunk fails", "*** Update File: a.txt\n@@\n-alpha\n+A\n@@\n-nothing\n+x", "chunk 2: its old lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := wstest.Env(t, files)
			if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
				t.Fatal(err)
			}
			before, beforeOutside := tooltest.Snapshot(t, env.Root), tooltest.Snapshot(t, outside)
			// The good section first: it must not be applied either.
			msg := fail(t, env, map[string]string{"patch": envelope(ok, c.section)})
			tooltest.Contains(t, msg, c.want)
			if !strings.HasSuffix(msg, "No file was changed.") {
				t.Errorf("message does not say nothing changed: %q", msg)
			}
			tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))
			tooltest.SameTree(t, beforeOutside, tooltest.Snapshot(t, outside))
		})
	}
}

func TestApplyPatchInputErrors(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "a\n"})
	tooltest.Contains(t, inputError(t, map[string]any{}), "invalid arguments", "missing", "patch")
	tooltest.Contains(t, inputError(t, map[string]any{"patch": " \n"}), `invalid arguments: patch is required: the text from "*** Begin Patch" to "*** End Patch"`)
	tooltest.Contains(t, inputError(t, map[string]any{"patch": 3}), "invalid arguments", "patch")
	tooltest.Contains(t, fail(t, env, map[string]string{"patch": "*** Update File: a.txt\n-a\n+b"}),
		`The patch does not parse (no file was changed): the patch must start with the line "*** Begin Patch"`)
}

func TestApplyPatchPlan(t *testing.T) {
	p, err := applyPatchTool(nil, nil).Prepare(tooltest.Input(t, map[string]string{"patch": envelope(
		"*** Add File: a.txt\n+x",
		"*** Update File: b.txt\n*** Move to: c/.env\n@@\n-x\n+y",
		"*** Delete File: d.txt",
	)}))
	if err != nil {
		t.Fatal(err)
	}
	plan := p.Plan()
	want := "a.txt b.txt c/.env d.txt"
	if got := strings.Join(plan.Subjects, " "); got != want {
		t.Errorf("subjects %q, want %q", got, want)
	}
	if got := strings.Join(plan.Writes, " "); got != want {
		t.Errorf("writes %q, want %q", got, want)
	}
	if plan.Title != "a.txt, b.txt, c/.env, d.txt" || plan.Commands != nil {
		t.Errorf("plan %+v", plan)
	}
}

func TestApplyPatchHeredocWrapped(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "x\n"})
	out := ok(t, env, map[string]string{"patch": "apply_patch <<'EOF'\n" + envelope("*** Update File: a.txt\n@@\n-x\n+y") + "EOF\n"})
	if out != "Applied 1 change:\n- updated a.txt (line 1)" || tooltest.ReadFile(t, env.Root, "a.txt") != "y\n" {
		t.Errorf("result %q, file %q", out, tooltest.ReadFile(t, env.Root, "a.txt"))
	}
}

// Two paths that are one file through a symlink inside the workspace are
// the same file twice.
func TestApplyPatchSameFileThroughSymlink(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "x\n"})
	if err := os.Symlink("a.txt", filepath.Join(env.Root, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	before := tooltest.Snapshot(t, env.Root)
	msg := fail(t, env, map[string]string{"patch": envelope(
		"*** Update File: a.txt\n@@\n-x\n+y",
		"*** Update File: alias.txt\n@@\n-x\n+z",
	)})
	tooltest.Contains(t, msg, `"*** Update File: a.txt" and "*** Update File: alias.txt" both touch a.txt`)
	tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))
}
