package tool

import (
	"github.com/aymanbagabas/go-udiff"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// diffCarryLimit is the largest before or after text a Diff carries whole.
// Past it only the unified diff travels: an editor can still show the
// change, and a huge generated file does not ride in every event.
const diffCarryLimit = 256 << 10

// FileDiff describes the change of one file from before to after (before
// empty for a new file, after empty for a deleted one), with a unified diff
// of three context lines whose headers name path.
func FileDiff(path, before, after string) *protocol.Diff {
	d := &protocol.Diff{Path: path, Before: before, After: after}
	from, to := "a/"+path, "b/"+path
	if before == "" {
		from = "/dev/null"
	}
	if after == "" {
		to = "/dev/null"
	}
	if u, err := udiff.ToUnified(from, to, before, udiff.Lines(before, after), 3); err == nil {
		d.Unified = u
	}
	if len(before) > diffCarryLimit || len(after) > diffCarryLimit {
		d.Before, d.After, d.Truncated = "", "", true
	}
	return d
}
