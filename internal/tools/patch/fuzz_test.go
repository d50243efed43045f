package patch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
	"github.com/shiro-neko/shiro/internal/workspace"
)

var patchSeeds = []string{
	"*** Begin Patch\n*** Add File: a\n+x\n\n+y\n*** Delete File: b\n*** End Patch",
	"*** Begin Patch\n*** Update File: a\n*** Move to: c\n@@ f\n@@ g\n x\n-y\n+z\n\n w\n*** End of File\n*** End Patch",
	"apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Update File: a\r\n-x\r\n+y\r\n*** End Patch\r\nEOF\r\n",
	"*** Begin Patch\n*** Update File: a\n@@ -1,2 +1,2 @@\n- *** End of File\n+ @@\n+*** Add File: q\n*** End Patch",
	"*** Begin Patch\n  *** Update File:b  \n@@\n \n-\n+\r\r\n*** End Patch",
	"*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch",
	"<<EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF",
}

// FuzzParsePatch feeds arbitrary text to the parser. It must never panic;
// a patch that parses must re-serialise to text that parses to the same
// value; and the lenient path scan behind the permission subjects must
// list every path the parser found (it may list more, never fewer).
func FuzzParsePatch(f *testing.F) {
	for _, s := range patchSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		scanned := patchPaths(text)
		p, err := parsePatch(text)
		if err != nil {
			return
		}
		for _, op := range p.ops {
			paths := []string{opPath(op)}
			if u, ok := op.(updateFileOp); ok && u.moveTo != "" {
				paths = append(paths, u.moveTo)
			}
			for _, path := range paths {
				if !slices.Contains(scanned, path) {
					t.Fatalf("the parser acts on %q but the subjects %q miss it", path, scanned)
				}
			}
		}
		again, err := parsePatch(p.String())
		if err != nil {
			t.Fatalf("re-serialised patch does not parse: %v\n%s", err, p.String())
		}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("round trip changed the patch:\n%#v\n%#v\n%s", p, again, p.String())
		}
	})
}

// FuzzApplyPatch applies a fuzzed Update to a fuzzed file through the
// tool, on disk. It must never panic; on failure the workspace must be
// exactly as before; on success the file on disk is what patchChunks
// computed, its line endings render back to the same bytes, and (when
// every chunk matched exactly) each chunk's new lines are where it says.
func FuzzApplyPatch(f *testing.F) {
	f.Add("a\nb\nc\n", "@@\n a\n-b\n+B\n")
	f.Add("one\r\ntwo\r\nthree", "@@\n two\n-three\n+3\n*** End of File\n")
	f.Add("func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", "@@ func f() {\n     if x {\n-        return\n+        return nil\n")
	f.Add("x\nx\nx\n", "@@\n-x\n+y\n")
	f.Add("say(“hi”) – ok \n", "@@\n-say(\"hi\") - ok\n+said\n")
	f.Add("", "@@\n+first\n")
	f.Add("a\n\nb\n", "@@ a\n+after a\n@@\n b\n+end\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, file, chunks string) {
		root, err := os.MkdirTemp(dir, "ws")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		env, err := workspace.New(root)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		text := "*** Begin Patch\n*** Update File: f.txt\n" + chunks + "\n*** End Patch\n"
		before := tooltest.Snapshot(t, root)
		in, _ := json.Marshal(map[string]string{"patch": text})
		// JSON carries invalid UTF-8 as U+FFFD: compare with what the tool got.
		var sent struct{ Patch string }
		if err := json.Unmarshal(in, &sent); err != nil {
			t.Fatal(err)
		}
		text = sent.Patch
		result, err := tooltest.Invoke(context.Background(), applyPatchTool(env, nil), in, tool.Runtime{})
		out := result.Output
		after := tooltest.Snapshot(t, root)
		if err != nil {
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("a failed patch changed the workspace: %v\nbefore %q\nafter %q", err, before, after)
			}
			return
		}
		if !strings.HasPrefix(out, "Applied 1 change:\n- updated f.txt (") {
			t.Fatalf("result %q", out)
		}
		if len(after) != len(before) {
			t.Fatalf("files appeared or vanished: %q", after)
		}
		got, _ := os.ReadFile(filepath.Join(root, "f.txt"))
		if textedit.Split(string(got)).Raw() != string(got) {
			t.Fatalf("result does not round-trip through splitEOL: %q", got)
		}
		p, err := parsePatch(text)
		if err != nil {
			t.Fatalf("the tool applied a patch the parser refuses: %v", err)
		}
		chunkList := p.ops[0].(updateFileOp).chunks
		res, err := patchChunks(file, chunkList)
		if err != nil {
			t.Fatalf("the tool applied chunks patchChunks refuses: %v", err)
		}
		if res.text.Raw() != string(got) {
			t.Fatalf("on disk %q, computed %q", got, res.text.Raw())
		}
		if strings.Contains(out, "matched ignoring") || (file != "" && !strings.HasSuffix(file, "\n")) {
			return // loose matches re-indent; a missing final newline trims the last span
		}
		// Matched exactly, each chunk's new lines are in the result, in
		// order (kept lines come from the file, which equals them here).
		at := 0
		for i, c := range chunkList {
			want := joinLines(c.newLines())
			j := strings.Index(res.text.LF[at:], want)
			if j < 0 && c.lines[len(c.lines)-1] == (chunkLine{kind: ' '}) {
				// Applied without its trailing empty kept line.
				nl := c.newLines()
				want = joinLines(nl[:len(nl)-1])
				j = strings.Index(res.text.LF[at:], want)
			}
			if j < 0 {
				t.Fatalf("chunk %d: new lines %q are not in the result after offset %d: %q", i+1, want, at, res.text.LF)
			}
			at += j + len(want)
		}
	})
}
