package bash

import (
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// pureCheck decides, on the parsed line, whether it runs in-process. It
// accepts statements joined by `;`, newlines, `&&`, `||`, `!` and `{ …; }`;
// the commands true, false, `:`, echo and `exit [n]`; and plain
// assignments. Words are literals without glob, brace or tilde
// characters, single and double quotes, and `$name`/`${name}` for a name
// assigned earlier on the line or found in the command's environment,
// never one bash sets itself. It follows the values a name may hold, so
// that an unquoted expansion is known not to glob, and echo's arguments
// are known to mean the same to bash and to the interpreter.
type pureCheck struct {
	// environ gives the command environment, asked for only when a name
	// is expanded (scrubbing it costs more than the rest of the check).
	environ func() []string
	// list and env are the environment, once asked for.
	list []string
	env  map[string]string
	// twice are the names the environment gives more than once: which
	// one bash reads is not worth knowing.
	twice map[string]bool
	// assigned are the values each name was given so far on the line.
	assigned map[string][]string
}

// maxValues bounds the values a word or a name may take before the line
// is left to bash, so that `a=$a$a; a=$a$a …` cannot grow without end.
const maxValues = 16

// bashReadsEnviron reports whether environ holds a variable bashReads.
func bashReadsEnviron(environ []string) bool {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if bashReads(name, value) {
			return true
		}
	}
	return false
}

// bashReads reports whether bash, finding name=value in its environment
// at its start, reads it in a way that changes what runs or prints (a
// startup file, options, exported functions, IFS, a locale it warns
// about), or sets, changes or drops it: a line run other than by bash
// (in-process, or a program in its place) would then differ.
func bashReads(name, value string) bool {
	if strings.HasPrefix(name, "BASH") || strings.Contains(name, "%") || strings.HasPrefix(value, "()") {
		return true // its own, BASH_ENV, exported functions (BASH_FUNC_f%%, older forms)
	}
	switch name {
	case "ENV", "SHELLOPTS", "IFS", "POSIXLY_CORRECT", "EXECIGNORE", "COMP_WORDBREAKS", "EPOCHREALTIME",
		"EPOCHSECONDS", "HISTCMD", "LINENO", "OPTERR", "OPTIND", "PPID", "PS1", "PS2", "PS4",
		"RANDOM", "SRANDOM":
		return true
	case "LC_ALL": // bash warns about a locale it cannot set
		return value != "" && value != "C" && value != "POSIX"
	}
	return false
}

// lookup is name's value in the command environment.
func (c *pureCheck) lookup(name string) (value string, set bool) {
	if c.env == nil {
		c.list = c.environ()
		c.env, c.twice = make(map[string]string, len(c.list)), map[string]bool{}
		for _, kv := range c.list {
			n, v, _ := strings.Cut(kv, "=")
			if _, seen := c.env[n]; seen || !utf8.ValidString(v) {
				c.twice[n] = true
			}
			c.env[n] = v
		}
	}
	value, set = c.env[name]
	return value, set && !c.twice[name]
}

func (c *pureCheck) stmts(ss []*syntax.Stmt) bool {
	for _, s := range ss {
		if !c.stmt(s) {
			return false
		}
	}
	return true
}

func (c *pureCheck) stmt(s *syntax.Stmt) bool {
	if s.Background || s.Coprocess || s.Disown || len(s.Redirs) > 0 {
		return false
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		return c.call(x)
	case *syntax.BinaryCmd:
		return (x.Op == syntax.AndStmt || x.Op == syntax.OrStmt) && c.stmt(x.X) && c.stmt(x.Y)
	case *syntax.Block:
		return c.stmts(x.Stmts)
	}
	return false
}

func (c *pureCheck) call(x *syntax.CallExpr) bool {
	if len(x.Args) == 0 {
		for _, a := range x.Assigns {
			if !c.assign(a) {
				return false
			}
		}
		return true
	}
	name, ok := plainLiteral(x.Args[0])
	if len(x.Assigns) > 0 || !ok {
		return false
	}
	args := x.Args[1:]
	switch name {
	case "true", "false", ":":
		_, ok := c.words(args)
		return ok
	case "exit":
		return len(args) == 0 || len(args) == 1 && exitStatusWord(args[0])
	case "echo":
		return c.echo(args)
	}
	return false
}

// assign follows `name=value`; appending, arrays and the names bash (or
// the interpreter) gives a meaning of its own are left to bash.
func (c *pureCheck) assign(a *syntax.Assign) bool {
	if a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Name == nil || shellOwned(a.Name.Value) || fromEnvOnly(a.Name.Value) {
		return false
	}
	vals := []string{""}
	if a.Value != nil {
		var ok bool
		if vals, ok = c.word(a.Value); !ok {
			return false
		}
	}
	held := c.assigned[a.Name.Value]
	for _, v := range vals {
		if !slices.Contains(held, v) {
			held = append(held, v)
		}
	}
	c.assigned[a.Name.Value] = held
	return len(held) <= maxValues
}

// echo checks echo's arguments. Bash takes any leading argument of the
// letters n, e and E as options (`-ne`), the interpreter only `-n`, `-e`
// and `-E`; and with -e, only the escapes both read alike may appear,
// and no `%`, which the interpreter would read as printf's.
func (c *pureCheck) echo(args []*syntax.Word) bool {
	vals, ok := c.words(args)
	if !ok {
		return false
	}
	escapes := false
	for _, v := range vals {
		for _, f := range strings.Fields(v) {
			escapes = escapes || f == "-e"
			if len(f) > 2 && f[0] == '-' && strings.Trim(f[1:], "neE") == "" {
				return false
			}
		}
	}
	if !escapes {
		return true
	}
	for _, v := range vals {
		if strings.Contains(v, "%") || !plainEscapes(v) {
			return false
		}
	}
	return true
}

// plainEscapes reports whether every backslash in s starts an escape that
// bash's echo -e and the interpreter's both read: \a \b \f \n \r \t \v \\.
func plainEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		i++
		if i == len(s) || !strings.ContainsRune(`abfnrtv\`, rune(s[i])) {
			return false
		}
	}
	return true
}

// words checks every word and returns all the values they may take.
func (c *pureCheck) words(ws []*syntax.Word) ([]string, bool) {
	var all []string
	for _, w := range ws {
		vals, ok := c.word(w)
		if !ok {
			return nil, false
		}
		all = append(all, vals...)
	}
	return all, true
}

// word returns the values w may take, after quote removal and before
// field splitting, or false when it is not a plain word.
func (c *pureCheck) word(w *syntax.Word) ([]string, bool) { return c.parts(w.Parts, false) }

// parts returns the values a word's parts may take, inside double quotes
// or not.
func (c *pureCheck) parts(ps []syntax.WordPart, quoted bool) ([]string, bool) {
	vals := []string{""}
	for _, p := range ps {
		var next []string
		ok := true
		switch x := p.(type) {
		case *syntax.Lit:
			special := "$`\"\\\n"
			if !quoted {
				special = ""
				if strings.ContainsAny(x.Value, "*?[{~") {
					return nil, false
				}
			}
			var v string
			v, ok = unquote(x.Value, special)
			next = []string{v}
		case *syntax.SglQuoted:
			next, ok = []string{x.Value}, !quoted && !x.Dollar
		case *syntax.DblQuoted:
			next, ok = c.parts(x.Parts, true)
			ok = ok && !quoted && !x.Dollar
		case *syntax.ParamExp:
			next, ok = c.param(x)
			// Unquoted, a value is split and globbed: it must hold no
			// pattern character (nor a backslash, which quotes one).
			ok = ok && (quoted || !slices.ContainsFunc(next, func(v string) bool { return strings.ContainsAny(v, `*?[\`) }))
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
		if vals = product(vals, next); vals == nil {
			return nil, false
		}
	}
	return vals, true
}

// param returns the values `$name` or `${name}` may take: the
// environment's (empty when unset) and each one given earlier on the line.
// A name neither set nor assigned, and one bash sets itself, are refused.
func (c *pureCheck) param(p *syntax.ParamExp) ([]string, bool) {
	if p.Param == nil || p.Flags != nil || p.Excl || p.Length || p.Width || p.IsSet || p.NestedParam != nil || p.Index != nil ||
		len(p.Modifiers) > 0 || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset {
		return nil, false
	}
	name := p.Param.Value
	if !syntax.ValidName(name) || shellOwned(name) {
		return nil, false
	}
	value, set := c.lookup(name)
	held, given := c.assigned[name]
	if !set && (!given || fromEnvOnly(name) || c.twice[name]) {
		return nil, false
	}
	return append([]string{value}, held...), true
}

// product is every a followed by every b, nil past maxValues.
func product(a, b []string) []string {
	if len(a)*len(b) > maxValues {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// unquote removes the backslashes that quote: before any character when
// special is empty (an unquoted word), else before those in special (in
// double quotes). A backslash-newline joins lines and leaves nothing; a
// backslash that ends the text is left to bash.
func unquote(s, special string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		next := s[i+1]
		switch {
		case next == '\n':
		case special == "" || strings.IndexByte(special, next) >= 0:
			b.WriteByte(next)
		default:
			b.WriteString(s[i : i+2])
		}
		i++
	}
	return b.String(), true
}

// plainLiteral is a word that is one literal without quoting.
func plainLiteral(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.Contains(lit.Value, `\`) {
		return "", false
	}
	return lit.Value, true
}

// exitStatusWord is `exit`'s argument written as 1 to 3 digits.
func exitStatusWord(w *syntax.Word) bool {
	s, ok := plainLiteral(w)
	return ok && len(s) > 0 && len(s) <= 3 && strings.Trim(s, "0123456789") == ""
}

// shellOwned reports whether bash (or the interpreter) sets or reads name
// itself, so that its value in the line may differ between the two.
func shellOwned(name string) bool {
	switch name {
	case "PWD", "OLDPWD", "SHLVL", "_", "IFS", "RANDOM", "SRANDOM", "SECONDS", "LINENO", "PPID", "UID", "EUID", "GID",
		"GROUPS", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "OPTIND", "OPTARG", "OPTERR", "PS1", "PS2", "PS3", "PS4",
		"SHELLOPTS", "POSIXLY_CORRECT", "ENV", "EPOCHREALTIME", "EPOCHSECONDS", "HISTCMD", "HISTFILE", "HISTSIZE",
		"HISTFILESIZE", "FUNCNAME", "DIRSTACK", "PIPESTATUS", "MAILCHECK", "GLOBIGNORE", "GLOBSORT", "TIMEFORMAT",
		"COLUMNS", "LINES", "TMOUT":
		return true
	}
	return strings.HasPrefix(name, "BASH") || strings.HasPrefix(name, "COMP")
}

// fromEnvOnly reports whether name may be read only as the environment
// has it and never assigned: bash gives PATH and SHELL a value when they
// are unset and the interpreter gives HOME one, and assigning a locale
// variable makes bash change (or warn about) its locale.
func fromEnvOnly(name string) bool {
	switch name {
	case "PATH", "SHELL", "HOME", "LANG", "LANGUAGE":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}
