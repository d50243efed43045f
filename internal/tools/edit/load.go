package edit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/shiro-neko/shiro/internal/prose"

	"github.com/aymanbagabas/go-udiff"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// editDoc is a file loaded for editing.
type editDoc struct {
	rel  string
	raw  string
	text textedit.Text
}

// loadForEdit reads the text file at p, refusing what cannot be edited
// with a message that says what to use instead.
func loadForEdit(env *workspace.Env, p string) (*editDoc, error) {
	f, file, err := fileop.Open(env, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, tool.Failf("No such file: %s. To create a file, use write_file.", file.Rel)
		}
		return nil, err
	}
	defer func() { _ = f.Close() }()
	rel, fi := file.Rel, file.Info
	if fi.IsDir() {
		return nil, tool.Failf("%s is a directory, not a file.", rel)
	}
	if !fi.Mode().IsRegular() {
		return nil, tool.Failf("%s is not a regular file (%s); only files can be edited.", rel, fi.Mode().Type())
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if workspace.IsBinary(b) {
		return nil, tool.Failf("%s is a binary file (it has a NUL byte in its first 8 KiB); only text files can be edited. Use bash to change it, or write_file to replace it whole.", rel)
	}
	raw := string(b)
	return &editDoc{rel: rel, raw: raw, text: textedit.Split(raw)}, nil
}

// change is the change of the document to after.
func (d *editDoc) change(after string) fileop.Change {
	return fileop.Change{Rel: d.rel, Existed: true, Before: d.raw, After: after}
}

// Diff output in an edit result is cut at these sizes: the model needs to
// see that the edit landed where intended, not the whole file.
const (
	diffMaxLines = 60
	diffMaxBytes = 4000
)

// shortDiff is a unified diff of the change, without file headers, cut to
// a glance.
func shortDiff(before, after string) string {
	d, err := udiff.ToUnified("", "", before, udiff.Lines(before, after), 2)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	// Drop the "--- " and "+++ " header lines.
	for len(lines) > 0 && (strings.HasPrefix(lines[0], "--- ") || strings.HasPrefix(lines[0], "+++ ")) {
		lines = lines[1:]
	}
	var b strings.Builder
	for i, l := range lines {
		if i == diffMaxLines || b.Len()+len(l) > diffMaxBytes {
			fmt.Fprintf(&b, "… (%d more diff lines)\n", len(lines)-i)
			break
		}
		b.WriteString(prose.Cut(l, 300))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
