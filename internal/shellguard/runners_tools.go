package shellguard

import "strings"

// followPackageRunner: `npm exec -c CMD`, `npm exec -- cmd`, `pnpm exec
// cmd`, `yarn exec cmd`, `bun x` run commands; scripts from package.json
// are files the guard does not read.
func followPackageRunner(base string, rest []arg) next {
	if shell, ok := scriptShell(rest); ok {
		// npm runs every script through the program --script-shell
		// names: `npm run x --script-shell='rm -rf y'` runs that.
		return next{scripts: [][]arg{{shell}}}
	}
	_, ops := scanOptions(rest, optSpec{value: "Cw", long: []string{"prefix", "workspace", "dir", "cwd", "filter"}})
	if len(ops) == 0 || !ops[0].lit {
		return next{}
	}
	switch ops[0].text {
	case "exec", "x", "dlx":
		// -c is npm's --call SCRIPT and pnpm's --shell-mode, which runs
		// the command that follows through a shell: both are a script.
		opts, cmd := scanOptions(ops[1:], optSpec{value: "cp", long: []string{"call", "package", "shell-mode"}})
		if script, ok := valueOf(opts, "c", "call", "shell-mode"); ok {
			return runsScript(script)
		}
		if base == "npm" || base == "bun" || ops[0].text == "dlx" {
			return next{} // runs a package's binary, as npx does
		}
		return runs(cmd)
	}
	return next{}
}

// scriptShell returns the program npm's --script-shell option names,
// given anywhere on the line, as `--script-shell=X` or `--script-shell X`.
func scriptShell(rest []arg) (arg, bool) {
	for i, w := range rest {
		if v, ok := strings.CutPrefix(w.text, "--script-shell="); ok {
			return arg{text: v, src: v, lit: w.lit}, true
		}
		if w.text == "--script-shell" && i+1 < len(rest) {
			return rest[i+1], true
		}
	}
	return arg{}, false
}

// followEnvRunner: tools that run a command inside an environment they
// set up (uv run, poetry run, bundle exec, nix develop -c…).
func followEnvRunner(base string, rest []arg) next {
	_, ops := scanOptions(rest, optSpec{value: "npC", long: []string{"name", "prefix", "project", "directory",
		"with", "python", "env", "environment", "package", "from", "group", "extra", "index-url", "cwd"}})
	switch base {
	case "nix-shell":
		opts, _ := scanOptions(rest, optSpec{value: "pIAE", long: []string{"run", "command", "packages", "arg", "argstr", "attr", "expr"}, permute: true})
		if script, ok := valueOf(opts, "run", "command"); ok {
			return runsScript(script)
		}
		return next{}
	case "nix":
		if len(ops) > 0 && oneOf(ops[0].text, "develop", "shell") {
			for i, w := range ops {
				if w.lit && oneOf(w.text, "-c", "--command") {
					return runs(ops[i+1:])
				}
			}
		}
		return next{}
	case "direnv":
		if len(ops) > 1 && ops[0].text == "exec" {
			return runs(ops[2:])
		}
		return next{}
	}
	if len(ops) == 0 || !ops[0].lit || !oneOf(ops[0].text, "run", "exec", "x") {
		return next{}
	}
	_, cmd := scanOptions(ops[1:], optSpec{value: "npe", long: []string{"name", "prefix", "with", "python", "env",
		"package", "from", "group", "extra", "env-file", "environment"}})
	for i, w := range cmd {
		if w.lit && w.text == "--" {
			return runs(cmd[i+1:]) // `mise exec node@20 -- node x`: tools, then the command
		}
	}
	return runs(cmd)
}

// followMake: make runs its variables in recipes through a shell, so a
// NAME=value operand is a command line; --eval makes rules of its text.
func followMake(rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{value: "CfIjlEoWO", long: []string{"directory", "file", "makefile",
		"include-dir", "jobs", "load-average", "eval", "old-file", "assume-old", "what-if", "new-file",
		"assume-new", "output-sync", "debug", "jobserver-style", "shuffle"}, permute: true})
	var n next
	if _, ok := valueOf(opts, "E", "eval"); ok {
		n.opaque = "make --eval runs rules given on the command line"
	}
	if f, ok := valueOf(opts, "f", "file", "makefile"); ok && (f.text == "-" || isStdinPath(f)) {
		n.stdin = readsOther
	}
	for _, w := range ops {
		if _, value, ok := strings.Cut(w.text, "="); ok && isAssignment(w.text) {
			v := w
			v.text, v.src = value, value
			n.scripts = append(n.scripts, []arg{v})
		}
	}
	return n
}

// followVim: -c, --cmd and +cmd run editor commands, which reach the
// shell (`:!`, system()).
func followVim(rest []arg) next {
	for _, w := range rest {
		if !w.lit {
			continue
		}
		if oneOf(w.text, "-c", "--cmd", "-S") || strings.HasPrefix(w.text, "+") && len(w.text) > 1 {
			return next{opaque: "runs editor commands given on the command line"}
		}
		if w.text == "--" {
			break
		}
	}
	return next{}
}

// followDebugger: gdb's --args runs a program; its -ex commands may run
// a shell.
func followDebugger(rest []arg) next {
	var n next
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case !w.lit:
		case w.text == "--args":
			return next{execs: [][]arg{rest[i+1:]}, opaque: n.opaque}
		case oneOf(w.text, "-ex", "--ex", "-iex", "--iex", "-eval-command", "--eval-command", "-init-eval-command",
			"--init-eval-command", "-o", "--one-line", "-O", "--source-before-file") && i+1 < len(rest):
			i++
			if !rest[i].lit || debuggerShell(rest[i].text) {
				n.opaque = "runs debugger commands that reach the shell"
			}
		case strings.HasPrefix(w.text, "--eval-command=") || strings.HasPrefix(w.text, "-eval-command="):
			_, cmd, _ := strings.Cut(w.text, "=")
			if debuggerShell(cmd) {
				n.opaque = "runs debugger commands that reach the shell"
			}
		}
	}
	return n
}

func debuggerShell(cmd string) bool {
	first := strings.Fields(strings.TrimSpace(cmd))
	if len(first) == 0 {
		return false
	}
	word := strings.ToLower(first[0])
	return strings.HasPrefix(word, "!") || strings.HasPrefix(word, "|") ||
		oneOf(word, "shell", "pipe", "python", "py", "pi", "python-interactive", "guile", "gu", "source", "platform", "script", "command")
}

// followCMake: `cmake -E rm -rf x` deletes like rm; -E's other tools
// copy and make directories.
func followCMake(rest []arg) next {
	for i, w := range rest {
		if !w.lit || w.text != "-E" || i+1 >= len(rest) {
			continue
		}
		tool := rest[i+1].text
		args := rest[i+2:]
		switch tool {
		case "rm", "remove":
			return runs(append([]arg{literalArg("rm")}, args...))
		case "remove_directory", "rmdir":
			return runs(append([]arg{literalArg("rm"), literalArg("-r")}, args...))
		case "env":
			return runs(append([]arg{literalArg("env")}, args...))
		case "time":
			return runs(args)
		}
		return next{}
	}
	return next{}
}

// followBwrap: bubblewrap's options take one, two or three values; the
// command follows them.
func followBwrap(rest []arg) next {
	arity := map[string]int{
		"--bind": 2, "--bind-try": 2, "--ro-bind": 2, "--ro-bind-try": 2, "--dev-bind": 2, "--dev-bind-try": 2,
		"--symlink": 2, "--setenv": 2, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2, "--chmod": 2,
		"--overlay": 3, "--tmp-overlay": 1, "--ro-overlay": 1, "--overlay-src": 1,
		"--unsetenv": 1, "--chdir": 1, "--tmpfs": 1, "--dev": 1, "--proc": 1, "--mqueue": 1, "--dir": 1,
		"--remount-ro": 1, "--uid": 1, "--gid": 1, "--hostname": 1, "--lock-file": 1, "--sync-fd": 1,
		"--info-fd": 1, "--json-status-fd": 1, "--seccomp": 1, "--add-seccomp-fd": 1, "--block-fd": 1,
		"--userns-block-fd": 1, "--exec-label": 1, "--file-label": 1, "--args": 1, "--userns": 1, "--userns2": 1,
		"--pidns": 1, "--cap-add": 1, "--cap-drop": 1, "--perms": 1, "--size": 1, "--argv0": 1,
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if !w.lit || !strings.HasPrefix(w.text, "-") {
			return runs(rest[i:])
		}
		if w.text == "--" {
			return runs(rest[i+1:])
		}
		i += arity[w.text]
	}
	return next{}
}
