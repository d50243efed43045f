package shellguard

import (
	"strings"
)

// Database clients run shell commands too: sqlite3's .shell and .system,
// psql's \! and `\o |cmd`, mysql's \! and system, COPY … TO PROGRAM,
// and output piped to a command. dbShell finds them in the client's
// words and in the text it reads, checks each command as a script, and
// refuses what cannot be checked (an extension loaded, files written
// through SQL functions).
func (a *engine) dbShell(sc *scope, base string, argv []arg, in *input, via []string, at string) string {
	var texts []arg
	for _, w := range argv[1:] {
		if strings.HasPrefix(w.text, "--pager=") || strings.HasPrefix(w.text, "--output=|") {
			_, v, _ := strings.Cut(w.text, "=")
			v = strings.TrimPrefix(v, "|")
			a.runScript(sc, []arg{{text: v, src: v, lit: w.lit}}, via, at)
			continue
		}
		texts = append(texts, w)
	}
	if base == "psql" {
		opts, _ := scanOptions(argv[1:], optSpec{value: "cdfhLopPUvFRT", permute: true})
		if out, ok := valueOf(opts, "o"); ok && strings.HasPrefix(out.text, "|") {
			a.runScript(sc, []arg{{text: out.text[1:], src: out.text[1:], lit: out.lit}}, via, at)
		}
	}
	if in != nil && in.known {
		texts = append(texts, arg{text: in.text, src: in.text, lit: in.lit})
	}
	why := ""
	for _, t := range texts {
		scripts, opaque := dbEscapes(t.text)
		if opaque != "" {
			a.opaque(at, opaque)
			why = opaque
		}
		for _, s := range scripts {
			if !t.lit {
				a.opaque(at, "runs a shell command decided at run time from a database client")
			} else {
				a.runScript(sc, []arg{literalArg(s)}, via, at)
			}
			why = "runs shell commands from a database client"
		}
	}
	return why
}

// dbEscapes returns the shell commands a database client's input runs,
// and why part of it cannot be checked ("" when it can).
func dbEscapes(text string) (scripts []string, opaque string) {
	lower := strings.ToLower(text)
	for _, fn := range []string{"load_extension(", "writefile(", "edit(", ".load ", "\\gexec", "lo_export(", "pg_read_file("} {
		if containsWord(lower, fn) {
			opaque = "a database client loads code or writes files (" + strings.TrimSpace(strings.TrimSuffix(fn, "(")) + ")"
		}
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if l := strings.ToLower(line); strings.HasPrefix(l, ".read ") && strings.Contains(l, "|") {
			opaque = "sqlite3 runs a command's output as its own input (.read |…)"
		}
		scripts = append(scripts, lineEscapes(line)...)
	}
	scripts = append(scripts, programQuotes(text)...)
	return scripts, opaque
}

// lineEscapes finds the shell commands of one line of client input.
func lineEscapes(line string) []string {
	var out []string
	line = fullDotCommand(line)
	lower := strings.ToLower(line)
	for _, prefix := range []string{".shell ", ".system ", "system ", "\\! ", "\\!", "!! ", ":!! ", "\\system ", "\\sh ", "pager ", "\\p "} {
		if strings.HasPrefix(lower, prefix) {
			out = append(out, strings.TrimSpace(line[len(prefix):]))
			return out
		}
	}
	for _, cmd := range []string{".once ", ".output ", ".import ", ".read ", "\\o ", "\\out ", "\\g ", "\\gx ", "\\w ", "\\write "} {
		rest, ok := strings.CutPrefix(lower, cmd)
		if !ok {
			if i := strings.Index(lower, " "+cmd); i >= 0 && strings.HasPrefix(cmd, "\\") {
				rest, ok = lower[i+1+len(cmd):], true
			}
		}
		if !ok {
			continue
		}
		start := len(line) - len(rest)
		target := strings.Trim(strings.TrimSpace(line[start:]), `'"`)
		if v, ok := strings.CutPrefix(target, "|"); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	// psql runs meta-commands anywhere on a line: `select 1 \! rm x`.
	if i := strings.Index(line, `\!`); i > 0 {
		out = append(out, strings.TrimSpace(line[i+2:]))
	}
	return out
}

// fullDotCommand spells out a sqlite3 dot-command given by a prefix:
// the shell accepts `.sys`, `.she` or `.o` for .system, .shell and
// .output, so `.sys rm -rf x` runs like `.system rm -rf x`.
func fullDotCommand(line string) string {
	word, rest, _ := strings.Cut(line, " ")
	name, ok := strings.CutPrefix(strings.ToLower(word), ".")
	if !ok || name == "" {
		return line
	}
	for _, full := range []string{"shell", "system", "once", "output", "import", "read"} {
		if strings.HasPrefix(full, name) {
			return "." + full + " " + rest
		}
	}
	return line
}

// programQuotes returns the commands of COPY … PROGRAM 'cmd' (and psql's
// \copy … program 'cmd'), which the server or psql run through a shell.
func programQuotes(text string) []string {
	var out []string
	lower := strings.ToLower(text)
	for i := 0; ; {
		j := strings.Index(lower[i:], "program")
		if j < 0 {
			return out
		}
		i += j + len("program")
		rest := strings.TrimLeft(text[i:], " \t\n")
		if rest == "" || (rest[0] != '\'' && rest[0] != '"') {
			continue
		}
		q := rest[0]
		end := strings.IndexByte(rest[1:], q)
		if end < 0 {
			return out
		}
		out = append(out, strings.ReplaceAll(rest[1:1+end], "''", "'"))
	}
}

// containsWord reports s holding word where it is not the end of a longer
// name (`edit(` but not `credit(`).
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !isWordByte(s[at-1]) {
			return true
		}
		i = at + 1
	}
}
