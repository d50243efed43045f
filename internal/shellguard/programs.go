package shellguard

import (
	"strings"
)

// next is what a program runs besides itself, as far as its arguments say.
type next struct {
	execs   [][]arg // commands it runs (a wrapper's command, find -exec …)
	scripts [][]arg // shell scripts it runs, each given as words joined by spaces (sh -c, eval)
	file    *arg    // the file a shell or interpreter reads its program from
	code    *arg    // program text handed inline to a non-shell interpreter (python -c)
	stdin   reader  // it reads a program from standard input
	// noScript: a shell given -c without its script, which xargs or
	// parallel then supply from their input (`xargs bash -c`).
	noScript bool
	// piped are shell scripts that read what the program writes
	// (awk's print | "sh"): input made at run time.
	piped [][]arg
	// assigns are the NAME=value words env and sudo put in the
	// environment of the command they run.
	assigns []arg
	// opaque says why what the program runs cannot be known before it
	// runs (`make --eval`, `vim -c`), "" when it can.
	opaque string
}

// reason says why a program that runs other code does, for
// Command.RunsCode; "" when it runs none.
func (n next) reason() string {
	switch {
	case len(n.execs) > 0:
		return "runs the command it is given"
	case len(n.scripts) > 0 || len(n.piped) > 0 || n.noScript:
		return "runs the shell script it is given"
	case n.code != nil:
		return "runs the code it is given"
	case n.stdin != readsNothing:
		return "runs the program it reads"
	case n.opaque != "":
		return n.opaque
	case len(n.assigns) > 0:
		return "sets the environment of the command it runs"
	}
	return ""
}

// reader says what kind of program a command reads from standard input.
type reader int

const (
	readsNothing reader = iota
	readsShell          // shell script: the guard can read it
	readsOther          // python, perl, node…: the guard cannot
	readsCrontab        // a table of commands to run later (crontab -)
)

func runs(argv []arg) next {
	if len(argv) == 0 {
		return next{}
	}
	return next{execs: [][]arg{argv}}
}

func runsScript(words ...arg) next { return next{scripts: [][]arg{words}} }

// shellArgv stands for the interactive shell some programs start when they
// are given no command (`sudo -s`, `su`), which reads standard input.
func shellArgv() []arg { return []arg{literalArg("sh")} }

// follow says what the program base runs, given its words (args[0] is the
// program). It knows wrappers, shells, interpreters and the programs that
// run commands they are given (find -exec, xargs, watch…).
func (a *engine) follow(sc *scope, base string, args []arg) next {
	rest := args[1:]
	switch base {
	case "sudo", "sudo-rs":
		return followSudo(rest)
	case "doas":
		opts, ops := scanOptions(rest, optSpec{value: "uC"})
		if has(opts, "s") && len(ops) == 0 {
			return runs(shellArgv())
		}
		return runs(ops)
	case "env":
		return a.followEnv(sc, rest)
	case "builtin", "chrt", "xargs", "flock", "chroot", "busybox", "toybox", "script":
		return followWrapper(base, rest)
	case "su", "runuser":
		return followSu(base, rest)
	case "watch":
		opts, ops := scanOptions(rest, optSpec{value: "nqs", attached: "d", long: []string{"interval", "equexit", "shotsdir"}})
		if has(opts, "x", "exec") {
			return runs(ops)
		}
		if len(ops) == 0 {
			return next{}
		}
		return runsScript(ops...) // watch hands its words to sh -c
	case "parallel":
		return followParallel(rest)
	case "eval":
		_, ops := scanOptions(rest, optSpec{})
		if len(ops) == 0 {
			return next{}
		}
		return runsScript(ops...)
	case "source", ".":
		_, ops := scanOptions(rest, optSpec{})
		if len(ops) == 0 {
			return next{}
		}
		if isStdinPath(ops[0]) {
			return next{stdin: readsShell}
		}
		return next{file: &ops[0]}
	case "trap":
		_, ops := scanOptions(rest, optSpec{})
		if len(ops) >= 2 && ops[0].text != "-" {
			return runsScript(ops[0])
		}
		return next{}
	case "alias":
		var n next
		for _, op := range rest {
			if _, value, ok := strings.Cut(op.text, "="); ok {
				n.scripts = append(n.scripts, []arg{{text: value, src: value, lit: op.lit}})
			}
		}
		return n
	case "find":
		return followFind(rest, "-exec", "-execdir", "-ok", "-okdir")
	case "fd", "fdfind":
		return followFind(rest, "-x", "--exec", "-X", "--exec-batch")
	}
	if w, ok := wrapperSpecFor(base); ok {
		return w.follow(rest)
	}
	if n, ok := followRunner(base, rest); ok {
		return n
	}
	if isShell(base) {
		return followShell(base, rest)
	}
	if IsInterpreter(base) {
		return followInterpreter(base, rest)
	}
	return next{}
}

func followSudo(rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{
		value: "ugpCDrtUTR",
		long:  []string{"user", "group", "prompt", "close-from", "chdir", "role", "type", "other-user", "command-timeout", "chroot", "host"},
	})
	if has(opts, "e", "edit", "l", "list", "v", "validate", "V", "version", "K", "remove-timestamp") {
		return next{}
	}
	cmd := skipAssignments(ops)
	assigns := ops[:len(ops)-len(cmd)]
	if has(opts, "s", "shell", "i", "login") {
		if len(cmd) == 0 {
			return next{execs: [][]arg{shellArgv()}, assigns: assigns}
		}
		return next{scripts: [][]arg{cmd}, assigns: assigns} // the shell runs the words as a script
	}
	n := runs(cmd)
	n.assigns = assigns
	return n
}

// followEnv skips env's options and NAME=value words. `env -S 'rm -rf x'`
// splits its string into words that env then reads as if given directly.
func (a *engine) followEnv(sc *scope, rest []arg) next {
	for range 4 {
		opts, ops := scanOptions(rest, optSpec{value: "uCPS", long: []string{"unset", "chdir", "split-string"}})
		if len(ops) > 0 && ops[0].lit && ops[0].text == "-" { // a lone "-" is -i
			ops = ops[1:]
		}
		split, ok := valueOf(opts, "S", "split-string")
		if !ok {
			cmd := skipAssignments(ops)
			n := runs(cmd)
			n.assigns = ops[:len(ops)-len(cmd)]
			return n
		}
		rest = append(a.splitWords(sc, split), ops...)
	}
	return next{}
}

// skipAssignments drops the leading NAME=value words that env and sudo
// accept before the command. Any word with an = counts, as it does for
// env: `BASH_FUNC_ls%%=() { …; }` is no shell name, but env sets it.
func skipAssignments(ops []arg) []arg {
	for len(ops) > 0 && strings.IndexByte(ops[0].text, '=') > 0 {
		ops = ops[1:]
	}
	return ops
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && isIdentifier(name)
}

// followWrapper handles the wrappers whose words need more than a
// wrapperSpec: an optional priority (chrt), a lock file or a script
// (flock), a shell when no command follows the root (chroot).
func followWrapper(base string, rest []arg) next {
	switch base {
	case "builtin":
		return runs(rest)
	case "chrt":
		opts, ops := scanOptions(rest, optSpec{value: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}})
		if has(opts, "p", "pid") {
			return next{}
		}
		if len(ops) > 0 && isNumber(ops[0].text) {
			ops = ops[1:] // the priority
		}
		return runs(ops)
	case "xargs":
		// The words xargs reads from standard input are appended to the
		// command; they are unknown here, which is a documented gap.
		opts, ops := scanOptions(rest, optSpec{
			value:    "adEILnPs",
			attached: "eil",
			long:     []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		})
		if replace, ok := valueOf(opts, "I", "i", "replace"); ok {
			if replace.text == "" {
				replace.text = "{}"
			}
			return runs(placeholders(ops, replace.text))
		}
		return runs(ops)
	case "flock":
		opts, ops := scanOptions(rest, optSpec{value: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}})
		if script, ok := valueOf(opts, "c", "command"); ok {
			return runsScript(script)
		}
		if len(ops) < 2 {
			return next{}
		}
		ops = ops[1:] // the lock file
		if ops[0].lit && (ops[0].text == "-c" || ops[0].text == "--command") {
			if len(ops) < 2 {
				return next{}
			}
			return runsScript(ops[1])
		}
		return runs(ops)
	case "chroot":
		_, ops := scanOptions(rest, optSpec{long: []string{"userspec", "groups"}})
		if len(ops) == 0 {
			return next{}
		}
		if len(ops) == 1 {
			return runs(shellArgv())
		}
		return runs(ops[1:])
	case "busybox", "toybox":
		if len(rest) == 0 || strings.HasPrefix(rest[0].text, "-") {
			return next{}
		}
		return runs(rest)
	case "script": // util-linux script -c 'cmd' runs cmd through a shell
		opts, _ := scanOptions(rest, optSpec{
			value:   "cEIOBTm",
			long:    []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"},
			permute: true,
		})
		if cmd, ok := valueOf(opts, "c", "command"); ok {
			return runsScript(cmd)
		}
	}
	return next{}
}

func followSu(base string, rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{
		value:   "csgGwu",
		long:    []string{"command", "session-command", "shell", "group", "supp-group", "whitelist-environment", "user"},
		permute: true,
	})
	if script, ok := valueOf(opts, "c", "command", "session-command"); ok {
		return runsScript(script)
	}
	if base == "runuser" && has(opts, "u", "user") {
		return runs(ops)
	}
	return runs(shellArgv()) // a login shell reading standard input
}

// followParallel: GNU parallel joins the words before ::: into a command
// line that a shell runs; with no command it runs each input line.
func followParallel(rest []arg) next {
	_, ops := scanOptions(rest, optSpec{
		value: "adEIjSnNLlsC",
		long: []string{"arg-file", "delimiter", "jobs", "max-procs", "sshlogin", "max-args", "max-lines", "max-chars",
			"colsep", "tmpdir", "joblog", "results", "workdir", "wd", "sshloginfile", "slf", "timeout", "delay",
			"memfree", "load", "retries", "halt", "tag-string", "basefile", "bf", "transferfile", "return", "env"},
	})
	end := len(ops)
	for i, op := range ops {
		if strings.HasPrefix(op.text, ":::") {
			end = i
			break
		}
	}
	if end == 0 {
		return next{stdin: readsShell}
	}
	return runsScript(ops[:end]...)
}

// followFind returns the commands of find's -exec family (or fd's -x),
// each running up to a ";" or "+" word.
func followFind(rest []arg, starts ...string) next {
	var n next
	for i := 0; i < len(rest); i++ {
		if !rest[i].lit || !oneOf(rest[i].text, starts...) {
			continue
		}
		j := i + 1
		for j < len(rest) && !(rest[j].lit && (rest[j].text == ";" || rest[j].text == "+")) {
			j++
		}
		if j > i+1 {
			n.execs = append(n.execs, placeholders(rest[i+1:j], "{"))
		}
		i = j
	}
	return n
}

// placeholders marks the words holding a placeholder (find's {}, xargs -I's
// string) as decided at run time: `find -exec {} \;` runs whatever it finds.
func placeholders(argv []arg, mark string) []arg {
	out := argv
	for i, w := range argv {
		if w.lit && strings.Contains(w.text, mark) {
			if &out[0] == &argv[0] {
				out = append([]arg(nil), argv...)
			}
			out[i].lit = false
			out[i].placeholder = true
		}
	}
	return out
}

// isStdinPath reports whether a script operand names standard input.
func isStdinPath(w arg) bool {
	return w.lit && oneOf(w.text, "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
