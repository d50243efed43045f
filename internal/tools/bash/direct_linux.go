package bash

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// direct is spec, which runs command with `bash -c`, made to run the
// program the command names itself, when bash would do nothing but start
// and exec it in place: the line is one simple command of literal words,
// naming a program bash finds in PATH (not a builtin, keyword or
// function). Bash's own start costs more CPU than most such programs
// (`ls`, `git status`). The program gets the argv and environment bash
// would have given it; false when bash could treat the line otherwise, so
// that bash's own messages and exit codes stay (docs/sandbox.md, "Commands
// bash would only exec").
func direct(env *workspace.Env, command string, spec proc.Spec) (proc.Spec, bool) {
	if filepath.Base(shellName(env)) != "bash" {
		return spec, false
	}
	argv, ok := literalCommand(command)
	if !ok {
		return spec, false
	}
	search, ok := lookupVar(spec.Env, "PATH")
	if !ok || search == "" {
		return spec, false
	}
	file, ok := lookPathAsBash(argv[0], env.Root, search)
	if !ok {
		return spec, false
	}
	environ, ok := bashEnviron(spec.Env, env.Root, file)
	if !ok {
		return spec, false
	}
	spec.Argv, spec.Path, spec.Env = argv, file, environ
	return spec, true
}

// shellWords are bash's builtins and reserved words (bash 5.2's `compgen
// -b` and `compgen -k`): a line naming one is bash's to run.
const shellWords = `. : [ alias bg bind break builtin caller cd command compgen
	complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg
	getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read
	readarray readonly return set shift shopt source suspend test times trap true type typeset
	ulimit umask unalias unset wait if then else elif fi case esac for select while until do done
	in function time { } ! [[ ]] coproc`

// literalCommand is the argv of a line that is one simple command of
// literal words, after quote removal; false for anything else: an
// expansion of any kind, a glob or brace character, a backslash, a
// redirection, a pipe, a list, `&`, an assignment, a comment, or a
// builtin or reserved word as the command's name.
func literalCommand(line string) ([]string, bool) {
	if strings.ContainsRune(line, 0) {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Last) > 0 {
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Comments) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown ||
		st.Semicolon.IsValid() || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	// Nothing but blanks after the last word: not even a comment.
	if strings.TrimSpace(line[call.Args[len(call.Args)-1].End().Offset():]) != "" {
		return nil, false
	}
	argv := make([]string, len(call.Args))
	for i, w := range call.Args {
		if argv[i], ok = literalWord(w); !ok {
			return nil, false
		}
	}
	for w := range strings.FieldsSeq(shellWords) {
		if argv[0] == w {
			return nil, false
		}
	}
	return argv, argv[0] != ""
}

// literalWord is w after quote removal when nothing in it expands. A
// backslash is refused rather than interpreted; so is, unquoted, every
// character a glob, brace, tilde or extended glob needs, and within
// double quotes `$` and the backquote.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\$`*?[]{}~!") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar { // $'…' decodes escapes
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar { // $"…" is translated
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(lit.Value, "\\$`") {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// lookPathAsBash finds name as bash does: with a slash, as written;
// else in the first folder of search holding an executable file of that
// name, an empty entry being ".". The file is spelt as bash spells it
// (the path it execs and its $_ for the program), relative to root, the
// working directory, when not absolute. A program that the sandbox may
// show otherwise than shiro sees it (under /tmp but not the workspace:
// the helper mounts a /tmp of its own; in a .git folder) is left to bash,
// which looks from inside.
func lookPathAsBash(name, root, search string) (string, bool) {
	candidates := []string{name}
	if !strings.Contains(name, "/") {
		candidates = strings.Split(search, ":")
		for i, dir := range candidates {
			if dir == "" {
				dir = "."
			}
			candidates[i] = dir + "/" + name
		}
	}
	for _, c := range candidates {
		file := c
		if !filepath.IsAbs(c) {
			file = root + "/" + c
		}
		clean := filepath.Clean(file)
		if strings.HasPrefix(c, "~") || strings.Contains(file, "/.git/") ||
			strings.HasPrefix(clean, "/tmp/") && !strings.HasPrefix(clean, root+"/") {
			return "", false
		}
		if executable(file) {
			return c, startsByExec(file)
		}
	}
	return "", false
}

// executable is bash's test of a file it found: not a folder, and
// executable by shiro's user.
func executable(file string) bool {
	info, err := os.Stat(file)
	return err == nil && !info.IsDir() && unix.Access(file, unix.X_OK) == nil
}

// startsByExec reports whether the kernel runs file itself: an ELF
// program, or a script whose #! interpreter exists. For anything else
// bash does more than exec (it runs a file without #! as a script of its
// own, and words a missing interpreter its own way).
func startsByExec(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	head := make([]byte, 256)
	n, _ := f.Read(head)
	_ = f.Close()
	head = head[:n]
	if bytes.HasPrefix(head, []byte("\x7fELF")) {
		return true
	}
	line, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return false
	}
	fields := bytes.Fields(bytes.SplitN(line, []byte("\n"), 2)[0])
	if len(fields) == 0 {
		return false
	}
	interp := string(fields[0])
	return filepath.IsAbs(interp) && executable(interp)
}

// lookupVar is the value environ gives name (the last entry, as bash and
// exec read it).
func lookupVar(environ []string, name string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// bashEnviron is environ as bash hands it to a program it execs in place
// from root: one entry per name (the last), $_ the program's path as
// bash found it, SHLVL as bash leaves it (one up at its start, one down
// for the exec), PWD kept only when it names root (else root as getcwd
// gives it), OLDPWD kept only when it names a folder. False when environ
// holds a variable bash would set or drop otherwise (its own, BASH_ENV,
// exported functions, SHELLOPTS, IFS, LC_ALL it warns about, …): bash
// runs those lines.
func bashEnviron(environ []string, root, shown string) ([]string, bool) {
	out := make([]string, 0, len(environ)+4)
	at := make(map[string]int, len(environ))
	set := func(name, kv string) {
		if i, seen := at[name]; seen {
			out[i] = kv
			return
		}
		at[name] = len(out)
		out = append(out, kv)
	}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if bashReads(name, value) {
			return nil, false
		}
		if ok && name != "_" {
			set(name, kv)
		}
	}
	level, _ := lookupVar(out, "SHLVL")
	n, err := strconv.Atoi(level)
	if level != "" && (err != nil || n < 0 || n > 998 || strings.Trim(level, "0123456789") != "") {
		return nil, false // bash's own reading of it, or its warning
	}
	set("SHLVL", "SHLVL="+strconv.Itoa(n))
	if old, ok := lookupVar(out, "OLDPWD"); ok {
		if info, err := os.Stat(old); err != nil || !info.IsDir() {
			out[at["OLDPWD"]] = "" // bash forgets an OLDPWD that is no folder
		}
	}
	pwd, _ := lookupVar(out, "PWD")
	if pwd, ok := pwdAsBash(pwd, root); ok {
		set("PWD", "PWD="+pwd)
		set("_", "_="+shown)
		return slices.DeleteFunc(out, func(kv string) bool { return kv == "" }), true
	}
	return nil, false
}

// pwdAsBash is the PWD bash exports when started in root: the inherited
// one when it is absolute and names root, else root as getcwd spells it.
func pwdAsBash(pwd, root string) (string, bool) {
	if pwd == root {
		return pwd, true
	}
	if a, err := os.Stat(pwd); err == nil && filepath.IsAbs(pwd) {
		if b, err := os.Stat(root); err == nil && os.SameFile(a, b) {
			return pwd, true
		}
	}
	real, err := filepath.EvalSymlinks(root)
	return real, err == nil && filepath.IsAbs(real)
}
