package shellguard

import "strings"

// followAwk reads an awk program for the ways it runs shell commands:
// system("cmd"), print … | "cmd", "cmd" | getline and gawk's |&. A command
// given as a string literal is checked as the script it is; one built at
// run time (system(cmd)) cannot be, and neither can an extension loaded
// with -l or @load. The program is the first operand unless -f names a
// file (a file the guard does not read) or -e gives it.
func followAwk(rest []arg) next {
	opts, ops := scanOptions(rest, awkSpec())
	var programs []arg
	for _, o := range opts {
		switch o.name {
		case "l", "load":
			return next{opaque: "awk loads an extension"}
		case "e", "source":
			programs = append(programs, o.value)
		}
	}
	if !awkProgramInOptions(opts) && len(ops) > 0 {
		programs = append(programs, ops[0])
	}
	var n next
	for _, p := range programs {
		if !p.lit {
			n.opaque = "runs an awk program decided at run time"
			continue
		}
		scripts, piped, why := awkCommands(p.text)
		if why != "" {
			n.opaque = why
		}
		for _, s := range scripts {
			n.scripts = append(n.scripts, []arg{literalArg(s)})
		}
		for _, s := range piped {
			n.piped = append(n.piped, []arg{literalArg(s)})
		}
	}
	return n
}

// awkSpec is awk's options (gawk's included) that take a value.
func awkSpec() optSpec {
	return optSpec{value: "FvfeilEWop", long: []string{"field-separator", "assign", "file", "source", "include", "load",
		"exec", "profile", "pretty-print", "dump-variables"}}
}

// awkProgramInOptions reports a program given by an option (-e, -f, -E)
// rather than as the first operand, which is then a file.
func awkProgramInOptions(opts []option) bool {
	return has(opts, "e", "source", "f", "file", "E", "exec")
}

// awkToken is one token of an awk program, as far as finding commands
// needs: a string literal (its value), a word, or one punctuation mark.
type awkToken struct {
	kind byte // 's' string, 'w' word, 'p' punctuation, 'r' regex
	text string
}

// awkCommands finds the shell commands an awk program runs; piped are
// those that read what the program prints.
func awkCommands(prog string) (scripts, piped []string, opaque string) {
	toks := awkTokens(prog)
	for i, t := range toks {
		switch {
		case t.kind == 'w' && t.text == "system":
			if i+3 < len(toks) && toks[i+1].text == "(" && toks[i+2].kind == 's' && toks[i+3].text == ")" {
				scripts = append(scripts, toks[i+2].text)
			} else {
				opaque = "an awk program runs a command built at run time"
			}
		case t.kind == 'w' && t.text == "@load":
			opaque = "awk loads an extension"
		case t.kind == 'p' && (t.text == "|" || t.text == "|&"):
			switch {
			case i+1 < len(toks) && toks[i+1].kind == 's':
				piped = append(piped, toks[i+1].text) // print | "cmd"
			case i+1 < len(toks) && toks[i+1].text == "getline" && i > 0 && toks[i-1].kind == 's':
				scripts = append(scripts, toks[i-1].text) // "cmd" | getline
			default:
				opaque = "an awk program pipes to or from a command built at run time"
			}
		}
	}
	return scripts, piped, opaque
}

// awkTokens splits an awk program into tokens, telling a regex literal
// (/a|b/, which may hold a |) from a division by what comes before it.
func awkTokens(prog string) []awkToken {
	var toks []awkToken
	operand := func() bool {
		if len(toks) == 0 {
			return false
		}
		last := toks[len(toks)-1]
		return last.kind == 's' || last.kind == 'r' || last.kind == 'w' && !awkKeyword(last.text) ||
			last.kind == 'p' && (last.text == ")" || last.text == "]" || last.text == "$")
	}
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '"':
			var b strings.Builder
			for i++; i < len(prog) && prog[i] != '"'; i++ {
				if prog[i] == '\\' && i+1 < len(prog) {
					i++
					switch prog[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(prog[i])
					}
					continue
				}
				b.WriteByte(prog[i])
			}
			toks = append(toks, awkToken{kind: 's', text: b.String()})
		case c == '/' && !operand():
			for i++; i < len(prog) && prog[i] != '/'; i++ {
				if prog[i] == '\\' {
					i++
				}
			}
			toks = append(toks, awkToken{kind: 'r'})
		case c == '_' || c == '@' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.':
			j := i + 1
			for j < len(prog) && (isWordByte(prog[j]) || prog[j] == '.') {
				j++
			}
			toks = append(toks, awkToken{kind: 'w', text: prog[i:j]})
			i = j - 1
		case c == '|' && i+1 < len(prog) && prog[i+1] == '|':
			toks = append(toks, awkToken{kind: 'p', text: "||"})
			i++
		case c == '|' && i+1 < len(prog) && prog[i+1] == '&':
			toks = append(toks, awkToken{kind: 'p', text: "|&"})
			i++
		default:
			toks = append(toks, awkToken{kind: 'p', text: string(c)})
		}
	}
	return toks
}

// awkKeyword reports words after which a / starts a regex (print /x/).
func awkKeyword(w string) bool {
	return oneOf(w, "print", "printf", "return", "in", "case", "if", "while", "for", "do", "else", "getline")
}
