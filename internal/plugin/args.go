package plugin

import (
	"slices"
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

// argSpec says which options of a program take a value, so their values
// are not mistaken for files.
type argSpec struct {
	short string   // letters whose value is the next word or the rest of the cluster
	long  []string // long options whose value may be the next word
}

// scanArgs splits a GNU-style argument list into options (name → values)
// and operands; options may follow operands, and "--" ends them.
func scanArgs(args []string, spec argSpec) (opts map[string][]string, ops []string) {
	opts = make(map[string][]string)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(ops, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			if !hasValue && slices.Contains(spec.long, name) && i+1 < len(args) {
				i++
				value = args[i]
			}
			opts[name] = append(opts[name], value)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				name := a[j : j+1]
				if !strings.Contains(spec.short, name) {
					opts[name] = append(opts[name], "")
					continue
				}
				value := a[j+1:]
				if value == "" && i+1 < len(args) {
					i++
					value = args[i]
				}
				opts[name] = append(opts[name], value)
				break
			}
		default:
			ops = append(ops, a)
		}
	}
	return opts, ops
}

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
