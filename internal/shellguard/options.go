package shellguard

import "strings"

// optSpec describes a program's options well enough to skip them without
// mistaking an option's value for the command the program runs: getting
// `timeout -s KILL 5 rm` wrong would make KILL the duration and 5 the
// program.
type optSpec struct {
	value    string   // short options that take a value, attached (-uroot) or as the next word
	attached string   // short options whose optional value can only be attached (xargs -i{})
	long     []string // long options that take a value (--user root, --user=root)
	permute  bool     // options may follow operands (GNU getopt without '+')
}

// option is one option as given: name is "u" or "user".
type option struct {
	name  string
	value arg
}

// scanOptions reads the options of args. Unless spec.permute is set it
// stops at the first operand, as wrappers do (everything after is the
// command). "--" ends the options and is dropped. A word with an expansion
// is an operand: the guard cannot know it is an option.
func scanOptions(args []arg, spec optSpec) (opts []option, operands []arg) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		if !w.lit || len(t) < 2 || t[0] != '-' {
			if !spec.permute {
				return opts, args[i:]
			}
			operands = append(operands, w)
			continue
		}
		if t == "--" {
			return opts, append(operands, args[i+1:]...)
		}
		if strings.HasPrefix(t, "--") {
			name, attached, hasValue := strings.Cut(t[2:], "=")
			value := literalArg(attached)
			if !hasValue && takesLongValue(spec.long, name) && i+1 < len(args) {
				i++
				value = args[i]
			}
			opts = append(opts, option{name: name, value: value})
			continue
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			switch {
			case strings.IndexByte(spec.value, c) >= 0:
				value := literalArg(t[j+1:])
				if j+1 == len(t) && i+1 < len(args) {
					i++
					value = args[i]
				}
				opts = append(opts, option{name: t[j : j+1], value: value})
				j = len(t)
			case strings.IndexByte(spec.attached, c) >= 0:
				opts = append(opts, option{name: t[j : j+1], value: literalArg(t[j+1:])})
				j = len(t)
			default:
				opts = append(opts, option{name: t[j : j+1]})
			}
		}
	}
	return opts, operands
}

// ScanArgs reads GNU-style options from plain words, as a plugin holding a
// command's words does: options may follow operands and "--" ends them.
// value names the short options that take a value, long the long ones.
// It returns each option's values by name as given ("b", "initial-branch").
func ScanArgs(words []string, value string, long ...string) (opts map[string][]string, operands []string) {
	args := make([]arg, len(words))
	for i, w := range words {
		args[i] = literalArg(w)
	}
	read, rest := scanOptions(args, optSpec{value: value, long: long, permute: true})
	opts = make(map[string][]string, len(read))
	for _, o := range read {
		opts[o.name] = append(opts[o.name], o.value.text)
	}
	for _, a := range rest {
		operands = append(operands, a.text)
	}
	return opts, operands
}

// takesLongValue reports whether the long option name (possibly
// abbreviated, as getopt_long allows) takes a value.
func takesLongValue(long []string, name string) bool {
	if name == "" {
		return false
	}
	for _, l := range long {
		if strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}

// has reports whether any of the named options was given.
func has(opts []option, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

// valueOf returns the value of the last of the named options given.
func valueOf(opts []option, names ...string) (arg, bool) {
	for i := len(opts) - 1; i >= 0; i-- {
		for _, n := range names {
			if opts[i].name == n {
				return opts[i].value, true
			}
		}
	}
	return arg{}, false
}

// LongPrefix reports whether word is the long option full or an
// unambiguous-looking abbreviation of it (getopt_long accepts `--rec` for
// `--recursive`); min is the shortest spelling counted, dashes included.
func LongPrefix(word, full string, min int) bool {
	name, _, _ := strings.Cut(word, "=")
	return len(name) >= min && strings.HasPrefix(full, name)
}

// anyLongPrefix reports whether word is LongPrefix of any of fulls.
func anyLongPrefix(word string, min int, fulls ...string) bool {
	for _, full := range fulls {
		if LongPrefix(word, full, min) {
			return true
		}
	}
	return false
}

// shortCluster reports whether word is a cluster of short options
// (`-rf`, not `--force` and not `-`).
func shortCluster(word string) bool {
	return len(word) > 1 && word[0] == '-' && word[1] != '-'
}
