package shellguard

import "strings"

// builtinHazard checks the builtins that change what later commands run
// or that run code themselves, and returns why the command runs code.
func (a *engine) builtinHazard(sc *scope, base string, argv []arg, at string) string {
	rest := argv[1:]
	switch base {
	case "hash":
		opts, ops := scanOptions(rest, optSpec{value: "p"})
		p, ok := valueOf(opts, "p")
		if !ok {
			return ""
		}
		for _, w := range append([]arg{p}, ops...) {
			if !w.lit {
				a.opaque(at, "hash -p makes a command name run a program decided at run time")
				break
			}
		}
		return "makes a command name run another program"
	case "alias":
		for _, w := range rest {
			if !w.lit || strings.IndexByte(w.text, '=') > 0 {
				return "makes a command name run other commands"
			}
		}
	case "enable":
		if opts, _ := scanOptions(rest, optSpec{value: "f"}); has(opts, "f") {
			a.opaque(at, "loads a shell builtin from a shared library")
			return "loads code into the shell"
		}
	case "mapfile", "readarray":
		opts, ops := scanOptions(rest, optSpec{value: "dnOsuCc"})
		if cb, ok := valueOf(opts, "C"); ok {
			a.runScript(sc, []arg{cb}, append(sc.via[:len(sc.via):len(sc.via)], base), at)
			return "runs a callback for the lines it reads"
		}
		a.readIntoProgramVars(ops, "MAPFILE", at)
	case "read":
		opts, ops := scanOptions(rest, optSpec{value: "adinNptu"})
		if arr, ok := valueOf(opts, "a"); ok {
			ops = append(ops, arr)
		}
		a.readIntoProgramVars(ops, "REPLY", at)
	case "printf":
		if v, ok := valueOf(firstOptions(rest, "v"), "v"); ok {
			a.readIntoProgramVars([]arg{v}, "", at)
		}
	case "getopts":
		if _, ops := scanOptions(rest, optSpec{}); len(ops) > 1 {
			a.readIntoProgramVars(ops[1:2], "", at)
		}
	}
	return ""
}

// readIntoProgramVars refuses reading a value at run time into a variable
// that programs run (`read PAGER`).
func (a *engine) readIntoProgramVars(names []arg, fallback, at string) {
	if len(names) == 0 && fallback != "" {
		names = []arg{literalArg(fallback)}
	}
	for _, n := range names {
		if !n.lit || runsProgramVar(n.text) {
			a.opaque(at, "sets a variable that names a program to a value read at run time")
			return
		}
	}
}
