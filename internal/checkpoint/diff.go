package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Hunk is one hunk of a unified diff, with the file headers it belongs
// under, ready to show alone.
type Hunk struct {
	Path string
	Text string
}

// Hunks are the unified-diff hunks of changes, file by file in path order.
// A binary file, a symbolic link and a change of the executable bit alone
// each make one hunk that says so.
func (s *Store) Hunks(ctx context.Context, changes []Change) ([]Hunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var olds []Change
	for _, c := range changes {
		olds = append(olds, Change{New: c.Old})
	}
	oldBlobs, err := s.readBlobs(ctx, olds)
	if err != nil {
		return nil, err
	}
	newBlobs, err := s.readBlobs(ctx, changes)
	if err != nil {
		return nil, err
	}
	var out []Hunk
	for _, c := range changes {
		out = append(out, fileHunks(c, oldBlobs[c.Old.Blob], newBlobs[c.New.Blob])...)
	}
	return out, nil
}

// Diff is the whole unified diff of changes.
func (s *Store) Diff(ctx context.Context, changes []Change) (string, error) {
	hunks, err := s.Hunks(ctx, changes)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	last := ""
	for _, h := range hunks {
		text := h.Text
		if h.Path == last {
			// Later hunks of one file share its headers.
			text = text[strings.Index(text, "\n@@")+1:]
		}
		b.WriteString(text)
		last = h.Path
	}
	return b.String(), nil
}

func fileHunks(c Change, old, new []byte) []Hunk {
	from, to := "a/"+c.Path, "b/"+c.Path
	if c.Kind == Added {
		from = "/dev/null"
	}
	if c.Kind == Deleted {
		to = "/dev/null"
	}
	header := fmt.Sprintf("--- %s\n+++ %s\n", from, to)
	note := func(s string) []Hunk { return []Hunk{{Path: c.Path, Text: header + "@@ " + s + " @@\n"}} }
	switch {
	case c.Old.Mode == "120000" || c.New.Mode == "120000":
		return note(fmt.Sprintf("symbolic link: %q -> %q", old, new))
	case binary(old) || binary(new):
		return note(fmt.Sprintf("binary file %s (%d -> %d bytes)", c.Kind, len(old), len(new)))
	}
	edits := udiff.Bytes(old, new)
	if len(edits) == 0 {
		return note(fmt.Sprintf("mode %s -> %s", c.Old.Mode, c.New.Mode))
	}
	u, err := udiff.ToUnifiedDiff(from, to, string(old), edits, 3)
	if err != nil {
		return note("no diff: " + err.Error())
	}
	var out []Hunk
	for _, h := range u.Hunks {
		one := udiff.UnifiedDiff{From: from, To: to, Hunks: []*udiff.Hunk{h}}
		out = append(out, Hunk{Path: c.Path, Text: one.String()})
	}
	return out
}

// binary reports whether data looks like a binary file: git's test, a NUL
// byte in the first 8000 bytes.
func binary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}
