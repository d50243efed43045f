package shellguard

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// singleQuoted returns the value of a '…' string, or of a $'…' one.
func singleQuoted(p *syntax.SglQuoted) string {
	if p.Dollar {
		return decodeANSIC(p.Value)
	}
	return p.Value
}

// decodeANSIC returns the value of a bash $'…' string body. The guard must
// decode it because $'\x72m' runs rm. Like bash, the value ends at a NUL.
func decodeANSIC(s string) string {
	out, _ := decodeEscapes(s, false)
	return out
}

// decodeEscapes decodes backslash escapes: those of $'…' and printf's
// format, or with echo set those of echo -e and printf %b, where \0 opens
// up to three more octal digits and \c ends the output (stop reports it).
// The value ends at a NUL, as the shell's strings do.
func decodeEscapes(s string, echo bool) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	stop := false
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if echo {
				stop = true
				i = len(s)
				continue
			}
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			limit := 2
			switch c {
			case 'u':
				limit = 4
			case 'U':
				limit = 8
			}
			n, used := readDigits(s[i+1:], limit, 16)
			if used == 0 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			i += used
			if c == 'x' {
				b.WriteByte(byte(n))
			} else if n <= utf8.MaxRune {
				b.WriteRune(rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			from := i
			if echo && c == '0' {
				from++
			}
			n, used := readDigits(s[from:], 3, 8)
			i = from + used - 1
			if used == 0 {
				i = from - 1 // a lone \0
			}
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	out := b.String()
	if end := strings.IndexByte(out, 0); end >= 0 {
		out = out[:end]
	}
	return out, stop
}

// readDigits reads up to limit digits of base from the start of s.
func readDigits(s string, limit, base int) (value, used int) {
	for used < limit && used < len(s) {
		d := digitValue(s[used])
		if d < 0 || d >= base {
			break
		}
		value = value*base + d
		used++
	}
	return value, used
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
