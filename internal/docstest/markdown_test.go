package docstest

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// doc is one markdown file as the checks read it: its raw text, its inline
// code spans, the lines of its fenced code blocks, and its tables.
type doc struct {
	name   string // as reported: docs/tools.md, README.md
	raw    string
	spans  []piece
	blocks [][]piece // one slice of lines per fenced or indented block
	tables []table
}

// piece is a span or a code line with the line it is on.
type piece struct {
	line int
	text string
}

// table is a markdown table: its header cells as plain text, and per row
// the code spans of each cell.
type table struct {
	header []string
	rows   [][][]piece
}

// parseDoc reads markdown with goldmark (GitHub tables on), the way the
// docs are rendered, so a backtick inside a code block or an escaped pipe
// in a table is read as a reader sees it.
func parseDoc(name string, src []byte) doc {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	root := md.Parser().Parse(text.NewReader(src))
	d := doc{name: name, raw: string(src)}
	lineOf := func(offset int) int { return 1 + bytes.Count(src[:offset], []byte("\n")) }
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan:
			if s, start, ok := spanText(n, src); ok {
				d.spans = append(d.spans, piece{line: lineOf(start), text: s})
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			var block []piece
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				block = append(block, piece{line: lineOf(seg.Start), text: strings.TrimRight(string(seg.Value(src)), "\r\n")})
			}
			d.blocks = append(d.blocks, block)
			return ast.WalkSkipChildren, nil
		case *east.Table:
			d.tables = append(d.tables, readTable(n, src, lineOf))
		}
		return ast.WalkContinue, nil
	})
	return d
}

// spanText joins a code span's text segments; a table cell's escaped pipe
// is a pipe.
func spanText(n *ast.CodeSpan, src []byte) (string, int, bool) {
	var b strings.Builder
	start := -1
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			continue
		}
		if start < 0 {
			start = t.Segment.Start
		}
		b.Write(t.Segment.Value(src))
		if t.SoftLineBreak() {
			b.WriteByte(' ')
		}
	}
	if start < 0 {
		return "", 0, false
	}
	return strings.ReplaceAll(b.String(), `\|`, "|"), start, true
}

func readTable(t *east.Table, src []byte, lineOf func(int) int) table {
	out := table{}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells [][]piece
		var header []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			var spans []piece
			var plain strings.Builder
			_ = ast.Walk(cell, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if !entering {
					return ast.WalkContinue, nil
				}
				switch n := n.(type) {
				case *ast.CodeSpan:
					if s, start, ok := spanText(n, src); ok {
						spans = append(spans, piece{line: lineOf(start), text: s})
						plain.WriteString(s)
					}
					return ast.WalkSkipChildren, nil
				case *ast.Text:
					plain.Write(n.Segment.Value(src))
				}
				return ast.WalkContinue, nil
			})
			cells = append(cells, spans)
			header = append(header, strings.TrimSpace(plain.String()))
		}
		if _, isHeader := row.(*east.TableHeader); isHeader {
			out.header = header
			continue
		}
		out.rows = append(out.rows, cells)
	}
	return out
}
