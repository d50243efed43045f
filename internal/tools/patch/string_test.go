package patch

import "strings"

// String writes the patch back in the envelope format. A parsed patch
// re-parses to the same value (the fuzz test holds it to that).
func (p patch) String() string {
	var b strings.Builder
	b.WriteString(markBegin + "\n")
	for _, op := range p.ops {
		switch o := op.(type) {
		case addFileOp:
			b.WriteString(markAdd + o.path + "\n")
			for _, l := range o.lines {
				b.WriteString("+" + l + "\n")
			}
		case deleteFileOp:
			b.WriteString(markDelete + o.path + "\n")
		case updateFileOp:
			b.WriteString(markUpdate + o.path + "\n")
			if o.moveTo != "" {
				b.WriteString(markMove + o.moveTo + "\n")
			}
			for _, c := range o.chunks {
				if len(c.anchors) == 0 {
					b.WriteString(markChunk + "\n")
				}
				for _, a := range c.anchors {
					b.WriteString(markChunk + " " + a + "\n")
				}
				for _, l := range c.lines {
					b.WriteByte(l.kind)
					b.WriteString(l.text + "\n")
				}
				if c.atEOF {
					b.WriteString(markEOF + "\n")
				}
			}
		}
	}
	b.WriteString(markEnd + "\n")
	return b.String()
}

// opPath is the path op names first (the source of a move).
func opPath(op patchOp) string {
	switch o := op.(type) {
	case addFileOp:
		return o.path
	case deleteFileOp:
		return o.path
	case updateFileOp:
		return o.path
	}
	panic("unknown patch operation")
}
