package edit

import (
	"strings"
)

// lineDoc is a text file as lines, each with its own ending, so that an
// edit changes only the lines it touches: a CRLF file stays CRLF, and a
// mixed file keeps every untouched line's ending.
type lineDoc struct {
	lines []string // without endings
	eols  []string // "\n" or "\r\n"; only the last line's may be ""
}

func parseLineDoc(data []byte) lineDoc {
	var d lineDoc
	s := string(data)
	for s != "" {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			d.lines = append(d.lines, s)
			d.eols = append(d.eols, "")
			break
		}
		line, eol := s[:nl], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:nl-1], "\r\n"
		}
		d.lines = append(d.lines, line)
		d.eols = append(d.eols, eol)
		s = s[nl+1:]
	}
	return d
}

func (d lineDoc) bytes() []byte {
	var b strings.Builder
	for i, l := range d.lines {
		b.WriteString(l)
		b.WriteString(d.eols[i])
	}
	return []byte(b.String())
}

// eol is the ending new lines get: the one most lines have, LF on a tie.
func (d lineDoc) eol() string {
	crlf := 0
	for _, e := range d.eols {
		if e == "\r\n" {
			crlf++
		}
	}
	if crlf*2 > len(d.eols) {
		return "\r\n"
	}
	return "\n"
}

// openEnded reports a file whose last line has no newline; edits at the
// end keep it that way.
func (d lineDoc) openEnded() bool {
	return len(d.eols) > 0 && d.eols[len(d.eols)-1] == ""
}

// textLines splits text from the model into lines; a final newline does
// not make another line, and CRLF counts as one newline.
func textLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// splice replaces lines [start, end) with repl, giving the new lines the
// file's ending, and keeps an open-ended file open-ended when the splice
// reaches its end.
func (d lineDoc) splice(start, end int, repl []string) lineDoc {
	eol := d.eol()
	atEnd := end == len(d.lines)
	open := d.openEnded()
	out := lineDoc{
		lines: make([]string, 0, len(d.lines)-(end-start)+len(repl)),
		eols:  make([]string, 0, len(d.lines)-(end-start)+len(repl)),
	}
	out.lines = append(out.lines, d.lines[:start]...)
	out.eols = append(out.eols, d.eols[:start]...)
	if start > 0 && out.eols[start-1] == "" {
		out.eols[start-1] = eol // no longer the last line
	}
	for _, l := range repl {
		out.lines = append(out.lines, l)
		out.eols = append(out.eols, eol)
	}
	out.lines = append(out.lines, d.lines[end:]...)
	out.eols = append(out.eols, d.eols[end:]...)
	if atEnd && open && len(out.eols) > 0 {
		out.eols[len(out.eols)-1] = ""
	}
	return out
}
