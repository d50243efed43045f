package patch

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
)

// Chunks are located with edit_file's match levels (textedit): exact
// first, then ignoring trailing whitespace, then indentation, then
// typographic punctuation. The first level that finds the lines anywhere
// in the search window decides, and there they must occur exactly once.
// Unlike edit_file, a chunk matches whole lines only.

// chunkError says why one chunk of an Update cannot be placed.
type chunkError struct {
	chunk int // 1-based
	msg   string
}

func (e *chunkError) Error() string { return fmt.Sprintf("chunk %d: %s", e.chunk, e.msg) }

// patchedText is an Update's result.
type patchedText struct {
	text   textedit.Text
	spans  []textedit.Span // where each changing chunk's new lines landed, in text.LF
	levels []textedit.Level
}

// patchChunks applies an Update's chunks, in order, to a file's text. The
// chunks must go down the file: each is searched for after the previous
// one. Nothing is changed unless every chunk finds its place. A chunk of
// kept lines only (allowed in a move) must find its place too, and
// changes nothing there: spans has an entry for each chunk that changes
// something, levels one for every chunk.
func patchChunks(raw string, chunks []patchChunk) (patchedText, error) {
	doc := textedit.Split(raw)
	// Chunks match whole lines, each ending in a newline; a file without a
	// final newline gets one for the match (in the file's majority ending)
	// that is taken off again afterwards.
	virtualNL := doc.LF != "" && !strings.HasSuffix(doc.LF, "\n")
	if virtualNL {
		if len(doc.CRLF)*2 > strings.Count(doc.LF, "\n") {
			doc.CRLF = append(doc.CRLF, len(doc.LF))
		}
		doc.LF += "\n"
	}
	m := &lineMatcher{text: doc.LF}
	reps := make([]textedit.Replacement, 0, len(chunks))
	levels := make([]textedit.Level, 0, len(chunks))
	cursor := 0
	for i, c := range chunks {
		rep, level, err := m.placeChunk(cursor, c)
		if err != nil {
			return patchedText{}, &chunkError{chunk: i + 1, msg: err.Error()}
		}
		if c.changes() {
			reps = append(reps, rep)
		}
		levels = append(levels, level)
		cursor = rep.End
	}
	out, spans := doc.Splice(reps)
	if virtualNL && strings.HasSuffix(out.LF, "\n") {
		end := len(out.LF) - 1
		if n := len(out.CRLF); n > 0 && out.CRLF[n-1] == end {
			out.CRLF = out.CRLF[:n-1]
		}
		out.LF = out.LF[:end]
		for i := range spans {
			spans[i].Start = min(spans[i].Start, end)
			spans[i].End = min(spans[i].End, end)
		}
	}
	return patchedText{text: out, spans: spans, levels: levels}, nil
}

// lineMatcher finds whole lines in one file's text (LF, every line ending
// in a newline). It normalizes the text for a loose level once and reuses
// that for every chunk and anchor of the file.
type lineMatcher struct {
	text  string
	loose [textedit.Punct + 1]*normalized
}

// normalized is the text at one loose level, with the source position of
// every byte.
type normalized struct {
	s   string
	pos textedit.Positions
}

func (m *lineMatcher) at(level textedit.Level) *normalized {
	if m.loose[level] == nil {
		s, pos := textedit.Normalize(m.text, level, true)
		m.loose[level] = &normalized{s: s, pos: pos}
	}
	return m.loose[level]
}

// placeChunk finds where one chunk applies, searching from the line at
// offset from.
func (m *lineMatcher) placeChunk(from int, c patchChunk) (textedit.Replacement, textedit.Level, error) {
	text := m.text
	window, afterAnchor := from, -1
	for _, a := range c.anchors {
		start, end, ok := m.findAnchor(from, a)
		if !ok {
			return textedit.Replacement{}, 0, fmt.Errorf("its @@ line %q matches no line from line %d on", a, lineOf(text, from))
		}
		// The window starts at the anchor line itself, so old lines that
		// repeat it still match; the next anchor is looked for below it.
		window, afterAnchor = start, end
		from = end
	}
	oldLines, newLines := c.oldLines(), c.newLines()
	if len(oldLines) == 0 {
		// Pure addition: below the last anchor, else at the end.
		at := len(text)
		if afterAnchor >= 0 && !c.atEOF {
			at = afterAnchor
		}
		return textedit.Replacement{Start: at, End: at, Text: joinLines(newLines)}, textedit.Exact, nil
	}
	old := joinLines(oldLines)
	found, level := m.chunkMatches(window, old, c.atEOF)
	// A trailing empty kept line is often a blank line the model added
	// after the chunk; try without it before giving up.
	if len(found) == 0 && c.lines[len(c.lines)-1] == (chunkLine{kind: ' '}) {
		shorter := patchChunk{lines: c.lines[:len(c.lines)-1], atEOF: c.atEOF}
		if o := joinLines(shorter.oldLines()); o != "" {
			if f, l := m.chunkMatches(window, o, c.atEOF); len(f) > 0 {
				c, old, found, level = shorter, o, f, l
			}
		}
	}
	switch {
	case len(found) == 1 && !c.changes():
		// Kept lines only: nothing to replace, and the next chunk is
		// looked for below them.
		return textedit.Replacement{Start: found[0].End, End: found[0].End}, level, nil
	case len(found) == 1:
		return changedLines(text, found[0], c, old, level), level, nil
	case len(found) > 1:
		return textedit.Replacement{}, 0, ambiguousChunk(text, found, level)
	}
	return textedit.Replacement{}, 0, m.missingChunk(window, old, c.atEOF)
}

// changedLines turns a chunk matched at m into the replacement of just the
// lines it removes and adds. Kept lines stay exactly as they are in the
// file, even where a loose match forgave their whitespace or punctuation;
// added lines are re-indented to the file's style when indentation was
// ignored. The matched region has one line per old line of the chunk.
func changedLines(text string, m textedit.Span, c patchChunk, old string, level textedit.Level) textedit.Replacement {
	newLines := c.newLines()
	if level >= textedit.Indent {
		newLines = strings.Split(strings.TrimSuffix(textedit.Reindent(joinLines(newLines), old, text[m.Start:m.End]), "\n"), "\n")
	}
	// Offsets of the matched file lines, plus the end.
	starts := []int{m.Start}
	for at := m.Start; at < m.End; {
		at = textedit.LineEnd(text, at) + 1
		starts = append(starts, at)
	}
	first, last := -1, -1
	for k, l := range c.lines {
		if l.kind != ' ' {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	oi, ni := 0, 0 // next old (file) line and next new line
	for _, l := range c.lines[:first] {
		if l.kind == ' ' {
			oi++
			ni++
		}
	}
	start := starts[oi]
	var b strings.Builder
	for _, l := range c.lines[first : last+1] {
		switch l.kind {
		case ' ':
			b.WriteString(text[starts[oi]:starts[oi+1]])
			oi++
			ni++
		case '-':
			oi++
		case '+':
			b.WriteString(newLines[ni] + "\n")
			ni++
		}
	}
	return textedit.Replacement{Start: start, End: starts[oi], Text: b.String()}
}

// chunkMatches finds old in text at or after from, at the first level
// that finds it; with atEOF only a match that ends the text counts.
func (m *lineMatcher) chunkMatches(from int, old string, atEOF bool) ([]textedit.Span, textedit.Level) {
	for _, level := range []textedit.Level{textedit.Exact, textedit.Trailing, textedit.Indent, textedit.Punct} {
		found := m.lineMatches(from, old, level)
		if atEOF {
			kept := found[:0]
			for _, f := range found {
				if f.End == len(m.text) {
					kept = append(kept, f)
				}
			}
			found = kept
		}
		if len(found) > 0 {
			return found, level
		}
	}
	return nil, textedit.Exact
}

// lineMatches returns every place, overlapping ones included, where the
// whole lines old (ending in a newline) occur in the text at or after from
// (a line start) at one match level, as byte ranges of whole lines.
func (m *lineMatcher) lineMatches(from int, old string, level textedit.Level) []textedit.Span {
	text := m.text
	var found []textedit.Span
	if level == textedit.Exact {
		for at := from; at < len(text); {
			i := strings.Index(text[at:], old)
			if i < 0 {
				break
			}
			s := at + i
			if s == 0 || text[s-1] == '\n' {
				found = append(found, textedit.Span{Start: s, End: s + len(old)})
			}
			at = s + 1
		}
		return found
	}
	nOld, _ := textedit.Normalize(old, level, false)
	if strings.TrimSpace(nOld) == "" {
		return nil // whitespace alone is no evidence of where the chunk goes
	}
	n := m.at(level)
	// Normalizing keeps every line, so the first byte that comes from at
	// or after from starts the window.
	first := sort.Search(len(n.s), func(i int) bool { return int(n.pos.Start[i]) >= from })
	for at := first; at < len(n.s); {
		i := strings.Index(n.s[at:], nOld)
		if i < 0 {
			break
		}
		a := at + i
		if a == 0 || n.s[a-1] == '\n' {
			b := a + len(nOld)
			// Levels from textedit.Indent on drop indentation, so a match
			// starts at a line's first visible character.
			found = append(found, textedit.Span{Start: textedit.LineStart(text, int(n.pos.Start[a])), End: int(n.pos.End[b-1])})
		}
		at = a + 1
	}
	return found
}

// findAnchor finds the first line at or after from that an @@ line names:
// a whole line at the first match level that finds one, else the first
// line containing the anchor's text. It returns the line's bounds.
func (m *lineMatcher) findAnchor(from int, anchor string) (start, end int, ok bool) {
	text := m.text
	for _, level := range []textedit.Level{textedit.Exact, textedit.Trailing, textedit.Indent, textedit.Punct} {
		if found := m.lineMatches(from, anchor+"\n", level); len(found) > 0 {
			return found[0].Start, found[0].End, true
		}
	}
	needle := strings.TrimSpace(anchor)
	for at := from; at < len(text); {
		end := textedit.LineEnd(text, at) + 1
		if strings.Contains(text[at:end], needle) {
			return at, end, true
		}
		at = end
	}
	return 0, 0, false
}

// ambiguousChunk explains a chunk that fits in several places.
func ambiguousChunk(text string, found []textedit.Span, level textedit.Level) error {
	const most = 5
	var at []string
	for i, m := range found {
		if i == most {
			at = append(at, "…")
			break
		}
		at = append(at, fmt.Sprint(lineOf(text, m.Start)))
	}
	how := ""
	if level != textedit.Exact {
		how = " (" + level.String() + ")"
	}
	return fmt.Errorf("its old lines fit %d places%s, at lines %s; add kept lines around the change, or an @@ line naming the enclosing function or class, until it fits one",
		len(found), how, strings.Join(at, ", "))
}

// missingChunk explains a chunk that fits nowhere, showing the file lines
// closest to it. A chunk that fits only above the previous chunk or anchor
// is out of order rather than missing.
func (m *lineMatcher) missingChunk(window int, old string, atEOF bool) error {
	text := m.text
	if window > 0 {
		if earlier, _ := m.chunkMatches(0, old, atEOF); len(earlier) > 0 {
			return fmt.Errorf("its old lines are at line %d, above where the search starts (line %d, after the previous chunk or @@ line); chunks must go down the file in order",
				lineOf(text, earlier[0].Start), lineOf(text, window))
		}
	}
	what := "its old lines (the ' ' and '-' lines) were not found"
	if atEOF {
		what += " at the end of the file (the chunk has *** End of File)"
	}
	diag := strings.Replace(textedit.NearestLines(strings.TrimSuffix(text, "\n"), old), "Your oldString begins:", "The chunk's old lines begin:", 1)
	if diag == "" {
		return fmt.Errorf("%s", what)
	}
	return fmt.Errorf("%s.\n%s", what, diag)
}

// joinLines renders lines as text, each line ending in a newline.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// lineOf is the 1-based number of the line holding offset at.
func lineOf(text string, at int) int {
	return strings.Count(text[:min(at, len(text))], "\n") + 1
}
