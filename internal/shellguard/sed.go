package shellguard

import "strings"

// followSed reads a GNU sed script for the commands it runs: `e command`
// runs a shell command, a bare `e` and the s command's e flag run the
// pattern space, text the input decides. --sandbox turns them off. The
// script is the values of -e and --expression, or the first operand;
// a script file (-f) is a file the guard does not read.
func followSed(rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{value: "efl", long: []string{"expression", "file", "line-length"}, permute: true})
	if has(opts, "sandbox") {
		return next{}
	}
	var scripts []arg
	for _, o := range opts {
		if o.name == "e" || o.name == "expression" {
			scripts = append(scripts, o.value)
		}
	}
	if len(scripts) == 0 && !has(opts, "f", "file") && len(ops) > 0 {
		scripts = append(scripts, ops[0])
	}
	var n next
	for _, s := range scripts {
		if !s.lit {
			if strings.ContainsRune(s.text, 'e') {
				n.opaque = "runs a sed script decided at run time"
			}
			continue
		}
		cmds, why := sedCommands(s.text)
		if why != "" {
			n.opaque = why
		}
		for _, c := range cmds {
			n.scripts = append(n.scripts, []arg{literalArg(c)})
		}
	}
	return n
}

// sedCommands parses a sed script and returns the shell commands its e
// commands run, and why part of it runs commands decided at run time (or
// cannot be read).
func sedCommands(script string) (cmds []string, opaque string) {
	p := sedParser{s: script}
	for !p.done() {
		p.skip(" \t\n;")
		if p.done() {
			break
		}
		if !p.address() {
			return cmds, "a sed script the guard cannot read"
		}
		p.skip(" \t")
		for p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.done() {
			return cmds, "a sed script the guard cannot read"
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case '#', ':', 'a', 'i', 'c', 'r', 'R', 'w', 'W':
			p.toLineEnd()
		case 'b', 't', 'T', 'l', 'L', 'q', 'Q', 'v':
			p.toCommandEnd()
		case 'e':
			if rest := strings.TrimSpace(p.toLineEnd()); rest != "" {
				cmds = append(cmds, rest)
			} else {
				opaque = "sed's e runs the text it reads as a command"
			}
		case 's':
			if !p.delimited(2) {
				return cmds, "a sed script the guard cannot read"
			}
			for !p.done() && strings.IndexByte("gpiImMe0123456789w", p.peek()) >= 0 {
				f := p.s[p.i]
				p.i++
				if f == 'e' {
					opaque = "sed's s///e runs the text it reads as a command"
				}
				if f == 'w' {
					p.toLineEnd()
				}
			}
		case 'y':
			if !p.delimited(2) {
				return cmds, "a sed script the guard cannot read"
			}
		default:
			return cmds, "a sed script the guard cannot read"
		}
	}
	return cmds, opaque
}

type sedParser struct {
	s string
	i int
}

func (p *sedParser) done() bool { return p.i >= len(p.s) }

func (p *sedParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// address reads an optional address or range: a line number, $, /re/,
// \cREc, first~step, followed by ,addr, ,+N or ,~N.
func (p *sedParser) address() bool {
	for part := 0; part < 2; part++ {
		switch c := p.peek(); {
		case c >= '0' && c <= '9':
			for !p.done() && (p.peek() >= '0' && p.peek() <= '9' || p.peek() == '~') {
				p.i++
			}
		case c == '$':
			p.i++
		case c == '/':
			if !p.delimited(1) {
				return false
			}
			p.skip("IM")
		case c == '\\':
			p.i++
			if !p.delimited(1) {
				return false
			}
			p.skip("IM")
		case (c == '+' || c == '~') && part == 1:
			p.i++
			for !p.done() && p.peek() >= '0' && p.peek() <= '9' {
				p.i++
			}
		default:
			return part == 0 || c != 0
		}
		if p.peek() != ',' {
			return true
		}
		p.i++
	}
	return true
}

// delimited reads parts pieces separated by the delimiter at p.i (s/a/b/
// has 2 after its first /), honouring backslash escapes.
func (p *sedParser) delimited(parts int) bool {
	if p.done() {
		return false
	}
	d := p.s[p.i]
	if d == '\n' || d == '\\' {
		return false
	}
	p.i++
	for n := 0; n < parts; n++ {
		for {
			if p.done() {
				return false
			}
			c := p.s[p.i]
			p.i++
			if c == '\\' {
				p.i++
				continue
			}
			if c == d {
				break
			}
		}
	}
	return true
}

func (p *sedParser) toLineEnd() string {
	start := p.i
	for !p.done() && p.s[p.i] != '\n' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	return p.s[start:min(p.i, len(p.s))]
}

func (p *sedParser) toCommandEnd() {
	for !p.done() && p.s[p.i] != '\n' && p.s[p.i] != ';' && p.s[p.i] != '}' {
		p.i++
	}
}
