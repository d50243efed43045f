package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/shiro-neko/shiro/internal/workspace"
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
	// Both sides' blobs, with one git process: readBlobs reads the New
	// side, so each change also goes in as its Old side.
	both := make([]Change, 0, 2*len(changes))
	for _, c := range changes {
		both = append(both, Change{New: c.Old}, c)
	}
	blobs, err := s.readBlobs(ctx, both)
	if err != nil {
		return nil, err
	}
	var out []Hunk
	for _, c := range changes {
		out = append(out, fileHunks(c, blobs[c.Old.Blob], blobs[c.New.Blob])...)
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
	case workspace.IsBinary(old) || workspace.IsBinary(new):
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
