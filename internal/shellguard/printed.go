package shellguard

import "strings"

// printed returns what echo or printf writes, given the words after the
// program's name, with escapes decoded as the program decodes them, so
// that `printf '\162\155 -rf x' | sh` is judged as the `rm -rf x` the shell
// reads. lit is false when a word is decided at run time (its text is then
// an approximation); ok is false when the output cannot be worked out (a
// printf conversion other than %s, %b, %c, %d, %i and %%).
func printed(prog string, words []arg) (text string, lit, ok bool) {
	lit = true
	for _, w := range words {
		lit = lit && w.lit
	}
	switch prog {
	case "echo":
		return printedEcho(words), lit, true
	case "printf":
		if len(words) > 0 && words[0].lit && words[0].text == "--" {
			words = words[1:]
		}
		if len(words) == 0 || !words[0].lit {
			return "", false, false
		}
		text, ok := printfOutput(words[0].text, words[1:])
		return text, lit, ok
	}
	return "", false, false
}

// printedEcho joins echo's words. Escapes are decoded unless -E is given:
// bash's echo decodes them with -e, and sh's (dash's) always does, so a
// line a shell reads is judged by the decoded text.
func printedEcho(words []arg) string {
	decode := true
	for len(words) > 0 && words[0].lit && isEchoFlags(words[0].text) {
		if i := strings.LastIndexAny(words[0].text, "eE"); i > 0 {
			decode = words[0].text[i] == 'e'
		}
		words = words[1:]
	}
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.text
	}
	out := strings.Join(texts, " ")
	if decode {
		out, _ = decodeEscapes(out, true)
	}
	return out
}

// printfOutput runs printf's format over args. The format repeats while
// arguments remain, as printf does.
func printfOutput(format string, args []arg) (string, bool) {
	var b strings.Builder
	next := 0
	take := func() string {
		if next < len(args) {
			next++
			return args[next-1].text
		}
		return ""
	}
	for {
		used := false
		from := 0 // where the format's text not written yet starts
		for i := 0; i < len(format); i++ {
			if format[i] != '%' {
				continue
			}
			if i+1 >= len(format) {
				return "", false
			}
			s, _ := decodeEscapes(format[from:i], false)
			b.WriteString(s)
			i++
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's', 'd', 'i':
				b.WriteString(take())
				used = true
			case 'c':
				if s := take(); s != "" {
					b.WriteByte(s[0])
				}
				used = true
			case 'b':
				s, stop := decodeEscapes(take(), true)
				b.WriteString(s)
				if stop {
					return b.String(), true
				}
				used = true
			default:
				return "", false
			}
			from = i + 1
		}
		s, _ := decodeEscapes(format[from:], false)
		b.WriteString(s)
		if !used || next >= len(args) || b.Len() > maxSketched*64 {
			break
		}
	}
	return b.String(), true
}
