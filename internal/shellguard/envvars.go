package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// varKind says what programs do with an environment variable's value.
type varKind uint8

const (
	varPlain   varKind = iota
	varCommand         // a command line a program runs through a shell (PAGER, GIT_SSH_COMMAND)
	varProgram         // a program a program runs (GIT_SSH, SSH_ASKPASS)
	varLoader          // code or settings a program loads (BASH_ENV, LD_PRELOAD, GIT_CONFIG_PARAMETERS)
	varPrompt          // a prompt the shell expands, running its $(…) (PS4)
)

// programVar says what programs do with the variable's value. name may
// carry an array index (`BASH_CMDS[ls]`, as printf -v and read name it).
func programVar(name string) varKind {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	switch name {
	case "PAGER", "GIT_PAGER", "MANPAGER", "PSQL_PAGER", "SYSTEMD_PAGER", "BAT_PAGER", "DELTA_PAGER",
		"LESSOPEN", "LESSCLOSE", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "SUDO_EDITOR", "FCEDIT",
		"SVN_EDITOR", "GIT_SSH_COMMAND", "RSYNC_RSH", "CVS_RSH", "BROWSER", "PROMPT_COMMAND", "TERMINAL",
		"GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "FZF_DEFAULT_COMMAND", "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "MAKESHELL":
		return varCommand
	case "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "SHELL", "CONFIG_SHELL":
		return varProgram
	case "BASH_ENV", "ENV", "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "GCONV_PATH", "BASHOPTS",
		"SHELLOPTS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "PERL5OPT",
		"RUBYOPT", "PYTHONSTARTUP", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "NODE_OPTIONS",
		// bash's hash table and alias table as arrays: BASH_CMDS[ls]=/bin/rm
		// is `hash -p /bin/rm ls`, which no rule can see through.
		"BASH_CMDS", "BASH_ALIASES":
		return varLoader
	case "PS4":
		return varPrompt
	}
	if strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		return varLoader
	}
	return varPlain
}

// runsProgramVar reports a variable whose value programs run or load.
func runsProgramVar(name string) bool { return programVar(name) != varPlain }

// assignment checks one assignment the syntax shows (NAME=value alone, before a
// command, or in export/declare/local/readonly).
func (a *engine) assignment(sc *scope, as *syntax.Assign) {
	if as.Name == nil || as.Naked || programVar(as.Name.Value) == varPlain {
		return
	}
	at := sc.slice(as.Pos(), as.End())
	value := literalArg("")
	if as.Value != nil {
		value = sc.evalWord(as.Value)
	} else if as.Array != nil {
		value = arg{text: sc.slice(as.Array.Pos(), as.Array.End())}
	}
	a.programVarValue(sc, as.Name.Value, value, at)
}

// programVarValue judges the value given to a variable that programs run
// or load. A command line is checked as the script it is; a value decided
// at run time, or code loaded from a file, cannot be checked.
func (a *engine) programVarValue(sc *scope, name string, value arg, at string) {
	kind := programVar(name)
	if kind == varPlain || value.lit && value.text == "" {
		return
	}
	switch {
	case kind == varPrompt:
		if !value.lit || strings.Contains(value.text, "$(") || strings.Contains(value.text, "`") {
			a.opaque(at, "sets "+name+" to a prompt with expansions, which the shell runs")
		}
	case kind == varLoader:
		if name == "NODE_OPTIONS" && value.lit && !nodeOptionsLoad(value.text) {
			return
		}
		a.opaque(at, "sets "+name+", which makes programs load code or settings the line chooses")
	case !value.lit:
		a.opaque(at, "sets "+name+", which names a program to run, to a value decided at run time")
	case kind == varProgram:
		a.command(sc, []arg{literalArg(value.text)}, append(sc.via[:len(sc.via):len(sc.via)], name), at, nil, 1)
	default:
		script := value.text
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			script = strings.TrimLeft(script, "|-")
		}
		a.runScript(sc, []arg{literalArg(script)}, append(sc.via[:len(sc.via):len(sc.via)], name), at)
	}
}

// nodeOptionsLoad reports NODE_OPTIONS that load code (--require,
// --import, a loader) rather than tune node (--max-old-space-size).
func nodeOptionsLoad(v string) bool {
	for _, f := range strings.Fields(v) {
		name, _, _ := strings.Cut(f, "=")
		if oneOf(name, "-r", "--require", "--import", "--loader", "--experimental-loader", "--experimental-specifier-resolution") {
			return true
		}
	}
	return false
}

// envWords judges the NAME=value words env and sudo put in the
// environment of the command they run, including a bash function passed
// that way (`env 'BASH_FUNC_ls%%=() { rm -rf x; }' bash -c ls`).
func (a *engine) envWords(sc *scope, words []arg, at string) string {
	why := ""
	for _, w := range words {
		name, value, ok := strings.Cut(w.text, "=")
		if !ok {
			continue
		}
		v := arg{text: value, src: value, lit: w.lit}
		if fn, ok := strings.CutPrefix(name, "BASH_FUNC_"); ok {
			fn = strings.TrimSuffix(strings.TrimSuffix(fn, "%%"), "()")
			if !v.lit {
				a.opaque(at, "passes a shell function decided at run time")
			} else {
				a.runScript(sc, []arg{literalArg(fn + " " + v.text)}, sc.via, at)
			}
			why = "defines a shell function for the command it runs"
			continue
		}
		if runsProgramVar(name) {
			a.programVarValue(sc, name, v, at)
			why = "sets " + name + ", which makes programs run code"
		}
	}
	return why
}

// declClause refuses a name reference (`declare -n r=PAGER`), which
// assigns a variable the guard cannot see by name.
func (a *engine) declClause(sc *scope, d *syntax.DeclClause) {
	for _, as := range d.Args {
		if !as.Naked || as.Name != nil || as.Value == nil {
			continue
		}
		flag := sc.evalWord(as.Value)
		if flag.lit && strings.HasPrefix(flag.text, "-") && strings.Contains(flag.text, "n") {
			a.opaque(sc.slice(d.Pos(), d.End()), "declares a name reference, which hides the variable it assigns")
			return
		}
	}
}
