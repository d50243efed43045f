package shellguard

import "strings"

// isShell reports whether base is a shell whose program the guard can read.
func isShell(base string) bool {
	switch base {
	case "sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "lksh", "oksh", "ash", "yash", "posh", "fish", "csh", "tcsh":
		return true
	}
	return false
}

// IsInterpreter reports whether base runs programs in a language the
// guard does not read, so what they do is not seen (python -c is a
// documented gap), but that can still run a download.
func IsInterpreter(base string) bool {
	switch base {
	case "perl", "ruby", "node", "nodejs", "bun", "deno", "php", "lua", "luajit", "osascript", "pwsh", "powershell":
		return true
	}
	for _, prefix := range []string{"python", "pypy"} {
		if v, ok := strings.CutPrefix(base, prefix); ok && strings.Trim(v, "0123456789.") == "" {
			return true
		}
	}
	return false
}

// isDownloader reports whether base fetches from the network to stdout.
func isDownloader(base string) bool {
	switch base {
	case "curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh", "xhs", "curlie", "lwp-request":
		return true
	}
	return false
}

// followShell finds a shell's program: the -c string, a script file, or
// standard input (no operand, -s, or /dev/stdin).
func followShell(base string, rest []arg) next {
	command, stdin := false, false
	i := 0
scan:
	for ; i < len(rest); i++ {
		w := rest[i]
		t := w.text
		switch {
		case !w.lit:
			break scan
		case t == "--" || t == "-":
			i++
			break scan
		case strings.HasPrefix(t, "--"):
			name, value, hasValue := strings.Cut(t[2:], "=")
			switch name {
			case "rcfile", "init-file", "init-command":
				if !hasValue {
					i++
				}
			case "command": // fish
				if hasValue {
					return runsScript(literalArg(value))
				}
				if i+1 < len(rest) {
					return runsScript(rest[i+1])
				}
				return next{}
			}
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'c':
					command = command || t[0] == '-'
				case 's':
					stdin = stdin || t[0] == '-'
				case 'o', 'O', 'C': // set -o NAME, shopt -O NAME, fish -C CMD
					i++
				}
			}
		default:
			break scan
		}
	}
	ops := rest[min(i, len(rest)):]
	switch {
	case command:
		if len(ops) == 0 {
			return next{noScript: true}
		}
		return runsScript(ops[0])
	case stdin || len(ops) == 0 || isStdinPath(ops[0]):
		return next{stdin: readsShell}
	}
	return next{file: &ops[0]}
}

// interpreterSpec says where an interpreter finds its program.
type interpreterSpec struct {
	opts   optSpec
	code   []string // options whose value is program text (python -c)
	module []string // options naming a program that is not on stdin (python -m)
	file   []string // options whose value is the program file (php -f)
}

func specFor(base string) interpreterSpec {
	switch base {
	case "ruby":
		return interpreterSpec{opts: optSpec{value: "erICE", attached: "FKTWx0"}, code: []string{"e"}}
	case "node", "nodejs", "bun":
		return interpreterSpec{
			opts: optSpec{value: "erpC", long: []string{"eval", "print", "require", "import", "loader", "experimental-loader", "input-type", "conditions", "title"}},
			code: []string{"e", "eval", "p", "print"},
		}
	case "php":
		return interpreterSpec{opts: optSpec{value: "rfcdzt"}, code: []string{"r"}, file: []string{"f"}}
	case "lua", "luajit":
		return interpreterSpec{opts: optSpec{value: "el"}, code: []string{"e"}}
	case "osascript":
		return interpreterSpec{opts: optSpec{value: "els"}, code: []string{"e"}}
	}
	// python and pypy
	return interpreterSpec{
		opts:   optSpec{value: "WXcm", long: []string{"check-hash-based-pycs"}},
		code:   []string{"c"},
		module: []string{"m"},
	}
}

// followInterpreter finds where a non-shell interpreter reads its program.
func followInterpreter(base string, rest []arg) next {
	switch base {
	case "perl":
		return followPerl(rest)
	case "deno":
		return followDeno(rest)
	case "pwsh", "powershell":
		return followPowerShell(rest)
	}
	spec := specFor(base)
	opts, ops := scanOptions(rest, spec.opts)
	if code, ok := valueOf(opts, spec.code...); ok {
		return next{code: &code}
	}
	if has(opts, spec.module...) {
		return next{}
	}
	if file, ok := valueOf(opts, spec.file...); ok {
		return next{file: &file}
	}
	if base == "bun" && len(ops) > 0 && ops[0].lit && ops[0].text == "run" {
		ops = ops[1:]
	}
	if len(ops) == 0 || isStdinPath(ops[0]) {
		return next{stdin: readsOther}
	}
	return next{file: &ops[0]}
}

// followPerl reads perl's switches: -e/-E carry code (`-pe 's/a/b/'`),
// and -I, -M, -m, -x, -i, -C, -d, -D take the rest of their cluster, while
// -l and -0 take only digits (`-le` is -l then -e).
func followPerl(rest []arg) next {
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		if !rest[i].lit || !shortCluster(t) {
			if t == "--" {
				i++
			}
			if i < len(rest) && !isStdinPath(rest[i]) {
				return next{file: &rest[i]}
			}
			return next{stdin: readsOther}
		}
	cluster:
		for j := 1; j < len(t); j++ {
			switch c := t[j]; {
			case c == 'e' || c == 'E':
				if j+1 < len(t) {
					code := literalArg(t[j+1:])
					return next{code: &code}
				}
				if i+1 < len(rest) {
					return next{code: &rest[i+1]}
				}
				return next{}
			case strings.IndexByte("IMmxiCdD", c) >= 0:
				break cluster
			case c == 'l' || c == '0':
				for j+1 < len(t) && t[j+1] >= '0' && t[j+1] <= '7' {
					j++
				}
			}
		}
	}
	return next{stdin: readsOther}
}

// followDeno: `deno eval CODE`, `deno run [opts] FILE|-`, bare deno is a
// REPL reading standard input.
func followDeno(rest []arg) next {
	_, ops := scanOptions(rest, optSpec{})
	if len(ops) == 0 {
		return next{stdin: readsOther}
	}
	switch ops[0].text {
	case "eval":
		if len(ops) > 1 {
			return next{code: &ops[1]}
		}
	case "run":
		_, files := scanOptions(ops[1:], optSpec{})
		if len(files) == 0 || isStdinPath(files[0]) {
			return next{stdin: readsOther}
		}
		return next{file: &files[0]}
	}
	return next{}
}

// followPowerShell reads pwsh's single-dash, case-insensitive parameters.
func followPowerShell(rest []arg) next {
	for i := 0; i < len(rest); i++ {
		t := strings.ToLower(rest[i].text)
		if !strings.HasPrefix(t, "-") || t == "-" {
			if isStdinPath(rest[i]) {
				return next{stdin: readsOther}
			}
			return next{file: &rest[i]}
		}
		if i+1 >= len(rest) {
			break
		}
		switch t {
		case "-c", "-command", "-e", "-ec", "-encodedcommand":
			if rest[i+1].text == "-" {
				return next{stdin: readsOther}
			}
			return next{code: &rest[i+1]}
		case "-f", "-file":
			return next{file: &rest[i+1]}
		case "-executionpolicy", "-ex", "-ep", "-workingdirectory", "-wd", "-configurationname", "-outputformat",
			"-of", "-inputformat", "-if", "-settingsfile", "-custompipename", "-windowstyle", "-w":
			i++
		}
	}
	return next{stdin: readsOther}
}
