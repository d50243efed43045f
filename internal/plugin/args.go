package plugin

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// approxWord is a word's value with quotes removed from its literal parts
// and any expansion kept as written, which is enough to recognise
// `"$HOME/.ssh/config"` as a path under .ssh.
func approxWord(w *syntax.Word) string {
	var b strings.Builder
	appendWordParts(&b, w.Parts)
	return b.String()
}

func appendWordParts(b *strings.Builder, parts []syntax.WordPart) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			appendWordParts(b, p.Parts)
		default:
			var src strings.Builder
			_ = syntax.NewPrinter().Print(&src, p)
			b.WriteString(src.String())
		}
	}
}

// optionValues are the values given to the named options, "-" and empty
// ones left out.
func optionValues(opts map[string][]string, names ...string) []string {
	var out []string
	for _, n := range names {
		for _, v := range opts[n] {
			if v != "" && v != "-" {
				out = append(out, v)
			}
		}
	}
	return out
}
