// Package patch is apply_patch: a change to several files in one call,
// written in the envelope OpenAI's Codex models are trained to write, and
// applied all or nothing.
//
// A patch is the envelope apply_patch accepts, the format OpenAI's Codex
// models are trained to write:
//
//	*** Begin Patch
//	*** Add File: path          then the file's lines, each prefixed "+"
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path       (optional, right after Update)
//	@@ optional anchor line     then chunk lines: " " keep, "-" remove, "+" add
//	*** End of File             (optional: the chunk ends at the end of the file)
//	*** End Patch
//
// parsePatch turns the text into one value per file operation; planPatch
// checks it against the workspace and computes every new file in memory;
// commitPlan writes them.
package patch

import (
	"strings"
)

// patch is a parsed patch: its file operations in order.
type patch struct {
	ops []patchOp
}

// patchOp is one file operation: addFileOp, deleteFileOp or updateFileOp.
type patchOp interface {
	// header is the marker line that introduces it, for messages.
	header() string
}

// addFileOp creates a file that must not exist yet.
type addFileOp struct {
	path  string
	lines []string
}

// deleteFileOp removes an existing file.
type deleteFileOp struct {
	path string
}

// updateFileOp changes an existing file in place, or moves it to moveTo
// (with or without changes).
type updateFileOp struct {
	path   string
	moveTo string
	chunks []patchChunk
}

func (o addFileOp) header() string    { return markAdd + o.path }
func (o deleteFileOp) header() string { return markDelete + o.path }
func (o updateFileOp) header() string { return markUpdate + o.path }

// content is the new file's bytes: every line ends in a newline, so an Add
// always leaves a trailing newline (an Add with no lines is an empty file).
func (o addFileOp) content() string {
	if len(o.lines) == 0 {
		return ""
	}
	return strings.Join(o.lines, "\n") + "\n"
}

// patchChunk is one change inside an Update: lines to keep and remove,
// which locate it, and lines to add.
type patchChunk struct {
	// anchors are the texts of its @@ lines, outermost first. Each moves the
	// search past the first line that matches it (a class, then a method).
	anchors []string
	lines   []chunkLine
	// atEOF is set by *** End of File: the chunk's old lines end the file.
	atEOF bool
}

// chunkLine is one line of a chunk: kind is ' ' (context), '-' or '+'.
type chunkLine struct {
	kind byte
	text string
}

// oldLines are the lines the chunk expects in the file: context and removed.
func (c patchChunk) oldLines() []string { return c.side('-') }

// newLines are the lines that replace them: context and added.
func (c patchChunk) newLines() []string { return c.side('+') }

func (c patchChunk) side(mine byte) []string {
	var out []string
	for _, l := range c.lines {
		if l.kind == ' ' || l.kind == mine {
			out = append(out, l.text)
		}
	}
	return out
}

// changes reports whether the chunk adds or removes anything.
func (c patchChunk) changes() bool {
	for _, l := range c.lines {
		if l.kind != ' ' {
			return true
		}
	}
	return false
}

// Marker lines. Markers are recognised with the spaces around them trimmed.
const (
	markBegin  = "*** Begin Patch"
	markEnd    = "*** End Patch"
	markAdd    = "*** Add File: "
	markDelete = "*** Delete File: "
	markUpdate = "*** Update File: "
	markMove   = "*** Move to: "
	markEOF    = "*** End of File"
	markChunk  = "@@"
)

// pathMarker reports which path-carrying marker a line is ("" if none) and
// the path it carries. It is the single place that reads paths out of a
// patch, shared by the parser and by patchPaths, so the permission subjects
// can never miss a path the parser would act on.
func pathMarker(line string) (marker, path string) {
	t := strings.TrimSpace(line)
	for _, m := range []string{markAdd, markDelete, markUpdate, markMove} {
		// The space after the colon is optional: "*** Add File:a" is read
		// the same as "*** Add File: a".
		prefix := strings.TrimSuffix(m, " ")
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			return m, strings.TrimSpace(rest)
		}
	}
	return "", ""
}

// patchPaths lists every path a patch text names in a file-operation or
// move marker, in order, without requiring the patch to be valid. It is
// what permission rules and write-guarding plugins see, so it errs on the
// side of listing too much: every line that looks like a marker counts.
func patchPaths(text string) []string {
	var paths []string
	for line := range strings.Lines(text) {
		if _, p := pathMarker(line); p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}
