package patch

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/prose"

	"github.com/shiro-neko/shiro/internal/tool"
)

// heredocOpener matches the first line of a patch a model wrapped in a
// shell heredoc, as if apply_patch were a command: `apply_patch <<'EOF'`,
// `<<EOF`, `<<"PATCH"`, `<<-EOF`. The quotes are checked to pair up below.
var heredocOpener = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\S*apply_patch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)
})

// patchParser reads a patch line by line; n is the 1-based number of the
// line at i in the text the model sent, for messages.
type patchParser struct {
	lines []string
	first int // number of lines[0] in the original text
	i     int
}

// parsePatch parses the text of an apply_patch call. CRLF line endings are
// read as LF, a heredoc wrapper is removed, and blank lines around the
// envelope are ignored. Errors name the line and say what was expected.
func parsePatch(text string) (patch, error) {
	lines := splitPatchLines(text)
	first := 1
	trimBlank := func() {
		for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
			lines = lines[1:]
			first++
		}
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
	}
	trimBlank()
	if len(lines) == 0 {
		return patch{}, tool.Failf("the patch is empty; it must start with %q and end with %q", markBegin, markEnd)
	}
	if m := heredocOpener().FindStringSubmatch(strings.TrimSpace(lines[0])); m != nil {
		if m[1] != m[3] {
			return patch{}, tool.Failf("line %d: the heredoc opener %q has unbalanced quotes", first, strings.TrimSpace(lines[0]))
		}
		delim := m[2]
		if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != delim {
			return patch{}, tool.Failf("line %d opens a heredoc (%s) but the patch does not end with a line %q; send the patch itself, from %q to %q", first, strings.TrimSpace(lines[0]), delim, markBegin, markEnd)
		}
		lines = lines[1 : len(lines)-1]
		first++
		trimBlank()
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != markBegin {
		got := ""
		if len(lines) > 0 {
			got = fmt.Sprintf(" (it starts with %q)", clip(lines[0]))
		}
		return patch{}, tool.Failf("the patch must start with the line %q%s", markBegin, got)
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != markEnd {
		return patch{}, tool.Failf("the patch must end with the line %q (its last line is %q)", markEnd, clip(lines[len(lines)-1]))
	}
	p := &patchParser{lines: lines[1 : len(lines)-1], first: first + 1}
	var out patch
	for {
		p.skipBlank()
		if p.done() {
			break
		}
		op, err := p.fileOp()
		if err != nil {
			return patch{}, err
		}
		out.ops = append(out.ops, op)
	}
	if len(out.ops) == 0 {
		return patch{}, tool.Failf("the patch has no file operations; add %q, %q or %q sections between %q and %q",
			strings.TrimSpace(markAdd), strings.TrimSpace(markUpdate), strings.TrimSpace(markDelete), markBegin, markEnd)
	}
	return out, nil
}

// splitPatchLines splits text into lines. Every trailing CR is dropped, so
// CRLF (and a stray CR before it) reads as LF; the files keep their own
// line endings regardless.
func splitPatchLines(text string) []string {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

func (p *patchParser) done() bool   { return p.i >= len(p.lines) }
func (p *patchParser) line() string { return p.lines[p.i] }
func (p *patchParser) num() int     { return p.first + p.i }

func (p *patchParser) skipBlank() {
	for !p.done() && strings.TrimSpace(p.line()) == "" {
		p.i++
	}
}

// fileOp parses one Add, Delete or Update section.
func (p *patchParser) fileOp() (patchOp, error) {
	marker, path := pathMarker(p.line())
	at := p.num()
	if marker == "" || marker == markMove {
		what := "a file operation"
		if marker == markMove {
			what = "a file operation (" + strings.TrimSpace(markMove) + " must come right after " + strings.TrimSpace(markUpdate) + ")"
		}
		return nil, tool.Failf("line %d: expected %s, one of %q, %q or %q; got %q", at, what,
			markAdd+"<path>", markUpdate+"<path>", markDelete+"<path>", clip(p.line()))
	}
	if path == "" {
		return nil, tool.Failf("line %d: %q needs a path after it", at, strings.TrimSpace(marker))
	}
	p.i++
	switch marker {
	case markAdd:
		return p.addBody(path), nil
	case markDelete:
		return deleteFileOp{path: path}, nil
	}
	return p.updateBody(path, at)
}

// addBody reads the "+" lines of an Add. A blank line between them is an
// empty line of the file (models often drop the "+" there); blank lines
// after the last "+" line only separate sections.
func (p *patchParser) addBody(path string) addFileOp {
	op := addFileOp{path: path}
	pendingBlank := 0
	for ; !p.done(); p.i++ {
		l := p.line()
		if text, ok := strings.CutPrefix(l, "+"); ok {
			for ; pendingBlank > 0; pendingBlank-- {
				op.lines = append(op.lines, "")
			}
			op.lines = append(op.lines, text)
			continue
		}
		if strings.TrimSpace(l) == "" {
			pendingBlank++
			continue
		}
		break
	}
	return op
}

// updateBody reads an optional Move to line and the chunks of an Update.
func (p *patchParser) updateBody(path string, at int) (patchOp, error) {
	op := updateFileOp{path: path}
	if !p.done() {
		if marker, to := pathMarker(p.line()); marker == markMove {
			if to == "" {
				return nil, tool.Failf("line %d: %q needs a path after it", p.num(), strings.TrimSpace(markMove))
			}
			op.moveTo = to
			p.i++
		}
	}
	for !p.done() {
		if p.startsSection() {
			break
		}
		c, err := p.chunk(path, len(op.chunks) == 0, op.moveTo != "")
		if err != nil {
			return nil, err
		}
		op.chunks = append(op.chunks, c)
	}
	if len(op.chunks) == 0 && op.moveTo == "" {
		return nil, tool.Failf("line %d: %q has no changes; give at least one chunk (an %q line, then lines starting with ' ', '-' or '+')", at, strings.TrimSpace(markUpdate+path), markChunk)
	}
	return op, nil
}

// startsSection reports whether the current line begins the next file
// operation, skipping blank separator lines when it does.
func (p *patchParser) startsSection() bool {
	j := p.i
	for j < len(p.lines) && strings.TrimSpace(p.lines[j]) == "" {
		j++
	}
	if j == len(p.lines) {
		p.i = j
		return true
	}
	if m, _ := pathMarker(p.lines[j]); m != "" && m != markMove && !isChunkLine(p.lines[j]) {
		p.i = j
		return true
	}
	return false
}

// isChunkLine reports whether a line is the content of a chunk by its
// first character. Inside an Update such a line is always content, even if
// it looks like a marker once trimmed (" *** End of File" is a kept line).
func isChunkLine(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+')
}

// unifiedRange matches the line numbers of a unified-diff hunk header
// ("-12,5 +12,6 @@"), which some models put after @@; they carry no anchor.
var unifiedRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)? @@`)
})

// chunk parses one chunk: its @@ lines, its content lines and an optional
// End of File marker. Only the first chunk of an Update may leave out @@.
// A chunk of kept lines alone is refused as changing nothing, unless the
// Update moves the file: there the move is the change, and the kept lines
// only say where the model believes the file stands.
func (p *patchParser) chunk(path string, first, moving bool) (patchChunk, error) {
	var c patchChunk
	p.skipBlank()
	start := p.num()
	sawHeader := false
	for !p.done() {
		t := strings.TrimSpace(p.line())
		if isChunkLine(p.line()) || !strings.HasPrefix(t, markChunk) {
			break
		}
		sawHeader = true
		if a := strings.TrimSpace(strings.TrimPrefix(t, markChunk)); a != "" && !unifiedRange().MatchString(a) {
			c.anchors = append(c.anchors, a)
		}
		p.i++
	}
	if !sawHeader && !first {
		return c, tool.Failf("line %d: expected %q to start the next chunk of %s, or a new file operation; got %q", p.num(), markChunk, path, clip(p.line()))
	}
	pendingBlank := 0
	for ; !p.done(); p.i++ {
		l := p.line()
		if isChunkLine(l) {
			for ; pendingBlank > 0; pendingBlank-- {
				c.lines = append(c.lines, chunkLine{kind: ' '})
			}
			c.lines = append(c.lines, chunkLine{kind: l[0], text: l[1:]})
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" {
			// An empty line is an empty kept line when more content follows;
			// trailing ones just separate sections.
			pendingBlank++
			continue
		}
		if t == markEOF {
			c.atEOF = true
			p.i++
			break
		}
		if strings.HasPrefix(t, markChunk) {
			break
		}
		if m, _ := pathMarker(l); m != "" && m != markMove {
			break
		}
		return c, tool.Failf("line %d: unexpected line in a chunk of %s: %q. Every line of a chunk starts with ' ' (kept), '-' (removed) or '+' (added)", p.num(), path, clip(l))
	}
	if len(c.lines) == 0 {
		return c, tool.Failf("line %d: a chunk of %s has no lines; after %q give the lines to keep (' '), remove ('-') and add ('+')", start, path, markChunk)
	}
	if !c.changes() && !moving {
		return c, tool.Failf("line %d: a chunk of %s changes nothing: it has no '-' or '+' lines", start, path)
	}
	return c, nil
}

// clip shortens a line quoted in an error message.
func clip(s string) string {
	const most = 80
	if len(s) <= most {
		return s
	}
	return prose.Cut(s, most)
}
