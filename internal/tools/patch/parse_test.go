package patch

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

func TestParsePatchSections(t *testing.T) {
	text := "*** Begin Patch\n" +
		"*** Add File: docs/new.md\n" +
		"+# New\n" +
		"\n" + // a blank line between "+" lines is an empty line of the file
		"+body\n" +
		"\n" + // trailing blank lines only separate sections
		"*** Delete File: old.txt\n" +
		"*** Update File: src/a.go\n" +
		"*** Move to: src/b.go\n" +
		"@@ func A() {\n" +
		" \tx := 1\n" +
		"-\treturn x\n" +
		"+\treturn x + 1\n" +
		"@@ -40,6 +40,7 @@\n" + // unified-diff numbers are not an anchor
		"@@ type T struct\n" +
		"@@     func (T) M()\n" +
		" keep\n" +
		"\n" + // an empty kept line inside a chunk
		"-gone\n" +
		"*** End of File\n" +
		"*** End Patch\n"
	got, err := parsePatch(text)
	if err != nil {
		t.Fatal(err)
	}
	want := patch{ops: []patchOp{
		addFileOp{path: "docs/new.md", lines: []string{"# New", "", "body"}},
		deleteFileOp{path: "old.txt"},
		updateFileOp{path: "src/a.go", moveTo: "src/b.go", chunks: []patchChunk{
			{anchors: []string{"func A() {"}, lines: []chunkLine{{' ', "\tx := 1"}, {'-', "\treturn x"}, {'+', "\treturn x + 1"}}},
			{anchors: []string{"type T struct", "func (T) M()"}, lines: []chunkLine{{' ', "keep"}, {' ', ""}, {'-', "gone"}}, atEOF: true},
		}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed\n%#v\nwant\n%#v", got, want)
	}
	if c := got.ops[0].(addFileOp).content(); c != "# New\n\nbody\n" {
		t.Errorf("Add content %q", c)
	}
	again, err := parsePatch(got.String())
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("String() does not round-trip: %v\n%s", err, got.String())
	}
}

func TestParsePatchLenientEnvelope(t *testing.T) {
	body := "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch"
	want, err := parsePatch(body)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"heredoc quoted":         "apply_patch <<'EOF'\n" + body + "\nEOF\n",
		"heredoc bare":           "<<EOF\n" + body + "\nEOF",
		"heredoc dq":             "<<\"PATCH\"\n" + body + "\nPATCH\n",
		"heredoc path":           "/usr/bin/apply_patch <<-EOF\n" + body + "\n  EOF  \n",
		"crlf":                   strings.ReplaceAll(body, "\n", "\r\n") + "\r\n",
		"blank lines around":     "\n\n  \n" + body + "\n\n\n",
		"spaces on markers":      "  *** Begin Patch  \n  *** Update File: a.txt  \n@@  \n-x\n+y\n   *** End Patch   ",
		"no space after colon":   "*** Begin Patch\n*** Update File:a.txt\n@@\n-x\n+y\n*** End Patch",
		"first chunk without @@": "*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch",
	} {
		got, err := parsePatch(text)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v", name, got)
		}
	}
}

func TestParsePatchErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", "  \n", "the patch is empty"},
		{"no begin", "*** Update File: a\n-x\n+y\n*** End Patch", `the patch must start with the line "*** Begin Patch" (it starts with "*** Update File: a")`},
		{"no end", "*** Begin Patch\n*** Update File: a\n-x\n+y\n", `the patch must end with the line "*** End Patch" (its last line is "+y")`},
		{"nothing inside", "*** Begin Patch\n\n*** End Patch", "the patch has no file operations"},
		{"heredoc not closed", "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n", `line 1 opens a heredoc (<<'EOF') but the patch does not end with a line "EOF"`},
		{"heredoc quotes", "<<'EOF\"\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF", "unbalanced quotes"},
		{"junk between sections", "*** Begin Patch\n*** Delete File: a\nhello\n*** End Patch", `line 3: expected a file operation, one of "*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>"; got "hello"`},
		{"move without update", "*** Begin Patch\n*** Move to: b\n*** End Patch", "line 2: expected a file operation (*** Move to: must come right after *** Update File:)"},
		{"empty path", "*** Begin Patch\n*** Add File:   \n+x\n*** End Patch", `line 2: "*** Add File:" needs a path after it`},
		{"empty move path", "*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n-x\n*** End Patch", `line 3: "*** Move to:" needs a path after it`},
		{"update without chunks", "*** Begin Patch\n*** Update File: a\n*** Delete File: b\n*** End Patch", `line 2: "*** Update File: a" has no changes`},
		{"bad chunk line", "*** Begin Patch\n*** Update File: a\n@@\n x\nfoo\n*** End Patch", `line 5: unexpected line in a chunk of a: "foo". Every line of a chunk starts with ' ' (kept), '-' (removed) or '+' (added)`},
		{"second chunk without @@", "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n-y\n*** End Patch", `line 6: expected "@@" to start the next chunk of a`},
		{"empty chunk", "*** Begin Patch\n*** Update File: a\n@@ f\n@@\n*** Delete File: b\n*** End Patch", "line 3: a chunk of a has no lines"},
		{"context only", "*** Begin Patch\n*** Update File: a\n@@\n x\n y\n*** End Patch", "line 3: a chunk of a changes nothing"},
		{"line numbers after heredoc", "<<EOF\n\n*** Begin Patch\n*** Update File: a\n@@\n?\n*** End Patch\nEOF", `line 6: unexpected line in a chunk of a: "?"`},
	} {
		_, err := parsePatch(c.text)
		if err == nil {
			t.Errorf("%s: parsed", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, err, c.want)
		}
	}
}

func TestPatchPathsIsLenient(t *testing.T) {
	text := "junk before\n*** Add File: a.txt\n+x\n  *** Update File:  b.txt \n*** Move to: c/d.txt\n" +
		"@@\n-+*** Delete File: not-a-marker\n*** Delete File: e.txt\n(no End Patch)"
	got := patchPaths(text)
	want := []string{"a.txt", "b.txt", "c/d.txt", "e.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// The plan reads the paths from the call input without requiring a
	// valid patch.
	p, err := applyPatchTool(nil, nil).Prepare(tooltest.Input(t, map[string]string{"patch": text}))
	if err != nil {
		t.Fatal(err)
	}
	if plan := p.Plan(); !slices.Equal(plan.Subjects, want) || !slices.Equal(plan.Writes, want) {
		t.Errorf("plan %+v", plan)
	}
	// Input that is not a call's is refused before anything reads it.
	for _, in := range []string{`{`, `[]`, `{"patch":3}`} {
		if _, err := applyPatchTool(nil, nil).Prepare([]byte(in)); err == nil {
			t.Errorf("%s was accepted", in)
		}
	}
}
