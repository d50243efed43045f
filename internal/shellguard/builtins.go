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
		opts, _ := scanOptions(rest, optSpec{value: mapfileValued})
		if cb, ok := valueOf(opts, "C"); ok {
			a.runScript(sc, []arg{cb}, append(sc.via[:len(sc.via):len(sc.via)], base), at)
			return "runs a callback for the lines it reads"
		}
	}
	// Reading a value at run time into a variable that programs run
	// (`read PAGER`) decides what they run.
	for _, n := range assignedNames(base, rest) {
		if !n.lit || runsProgramVar(n.text) {
			a.opaque(at, "sets a variable that names a program to a value read at run time")
			break
		}
	}
	return ""
}

// mapfileValued are mapfile's short options that take a value.
const mapfileValued = "dnOsuCc"

// assignedNames returns the variables a builtin assigns by name, with
// the one it falls back on: read's (REPLY), mapfile's (MAPFILE),
// getopts' (and OPTARG), printf -v's and wait -p's; nil for any other
// command.
func assignedNames(base string, rest []arg) []arg {
	switch base {
	case "read":
		opts, ops := scanOptions(rest, optSpec{value: "adinNptu"})
		names := ops[:len(ops):len(ops)]
		if arr, ok := valueOf(opts, "a"); ok {
			names = append(names, arr)
		}
		if len(names) == 0 {
			return []arg{literalArg("REPLY")}
		}
		return names
	case "readarray", "mapfile":
		if _, ops := scanOptions(rest, optSpec{value: mapfileValued}); len(ops) > 0 {
			return ops[:1]
		}
		return []arg{literalArg("MAPFILE")}
	case "getopts":
		names := []arg{literalArg("OPTARG")}
		if _, ops := scanOptions(rest, optSpec{}); len(ops) > 1 {
			names = append(names, ops[1])
		}
		return names
	case "printf", "wait":
		flag := "v"
		if base == "wait" {
			flag = "p"
		}
		opts, _ := scanOptions(rest, optSpec{value: flag})
		if v, ok := valueOf(opts, flag); ok {
			return []arg{v}
		}
	}
	return nil
}
