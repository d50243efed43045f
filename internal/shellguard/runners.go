package shellguard

import (
	"strings"
)

// followRunner knows the programs that run shell commands given in their
// options or operands besides their main job: archivers and copiers that
// pipe through a command (tar --to-command, zip -TT, rsync -e), remote
// shells (ssh's command and ProxyCommand), package runners (npx -c,
// uv run), tools that run a command per event (hyperfine, watchexec,
// entr), schedulers (at, crontab), terminal multiplexers, and editors and
// debuggers told to run commands. ok is false for any other program.
func followRunner(base string, rest []arg) (next, bool) {
	switch base {
	case "awk", "gawk", "mawk", "nawk":
		return followAwk(rest), true
	case "sed", "gsed":
		return followSed(rest), true
	case "tar":
		return followTar(rest), true
	case "zip":
		return followZip(rest), true
	case "rsync":
		n := valuedScripts(rest, optSpec{value: "eBfT", long: []string{"rsh", "rsync-path", "filter", "exclude",
			"include", "temp-dir", "log-file", "password-file", "files-from", "partial-dir", "compare-dest",
			"copy-dest", "link-dest", "backup-dir", "suffix", "chmod", "chown", "usermap", "groupmap", "out-format",
			"log-file-format", "timeout", "contimeout", "port", "sockopts", "bwlimit", "max-size", "min-size",
			"iconv", "checksum-choice", "compress-choice", "stop-after", "stop-at"}, permute: true},
			"e", "rsh", "rsync-path")
		return n, true
	case "scp", "sftp":
		opts, _ := scanOptions(rest, optSpec{value: "cDFiJloPSX", permute: true})
		n := sshOptionScripts(opts)
		if prog, ok := valueOf(opts, "S"); ok {
			n.execs = append(n.execs, []arg{prog})
		}
		return n, true
	case "ssh":
		return followSSH(rest), true
	case "npx", "pnpx":
		return valuedScripts(rest, optSpec{value: "pc", long: []string{"package", "call"}}, "c", "call"), true
	case "npm", "pnpm", "yarn":
		return followPackageRunner(base, rest), true
	case "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "mamba", "micromamba", "bundle", "mise",
		"asdf", "rbenv", "pyenv", "nodenv", "direnv", "nix", "nix-shell", "devbox", "pixi":
		return followEnvRunner(base, rest), true
	case "make", "gmake", "remake":
		return followMake(rest), true
	case "man":
		return valuedScripts(rest, optSpec{value: "CMPHSmpeLrERI", long: []string{"pager", "html", "config-file",
			"manpath", "sections", "systems", "preprocessor", "extension", "locale", "encoding", "prompt"}, permute: true},
			"P", "pager", "H", "html"), true
	case "vi", "vim", "nvim", "view", "ex", "gvim", "rvim", "vimdiff":
		return followVim(rest), true
	case "emacs", "emacsclient":
		for _, w := range rest {
			if w.lit && (oneOf(w.text, "--eval", "-eval", "--execute", "-e") || strings.HasPrefix(w.text, "--eval=")) {
				return next{opaque: "runs Emacs Lisp given on the command line"}, true
			}
		}
		return next{}, true
	case "gdb", "gdb-multiarch", "lldb":
		return followDebugger(rest), true
	case "expect":
		opts, ops := scanOptions(rest, optSpec{value: "cf"})
		switch {
		case has(opts, "c"):
			return next{opaque: "runs Tcl code given on the command line"}, true
		case has(opts, "f") || len(ops) > 0 && !isStdinPath(ops[0]):
			return next{}, true
		}
		return next{stdin: readsOther}, true
	case "dc":
		for _, w := range rest {
			if strings.Contains(w.text, "!") {
				return next{opaque: "dc's ! runs a shell command"}, true
			}
		}
		return next{}, true
	case "tmux":
		return followTmux(rest), true
	case "screen":
		return followScreen(rest), true
	case "at", "batch":
		opts, _ := scanOptions(rest, optSpec{value: "qfMt", permute: true})
		if has(opts, "f", "l", "d", "r", "c") {
			return next{}, true
		}
		return next{stdin: readsShell}, true
	case "crontab":
		return followCrontab(rest), true
	case "hyperfine":
		return followHyperfine(rest), true
	case "watchexec":
		_, ops := scanOptions(rest, optSpec{value: "wefisdEoWF", long: []string{"watch", "exts", "filter", "ignore",
			"signal", "debounce", "env", "on-busy-update", "shell", "workdir", "project-origin", "filter-file",
			"ignore-file", "emit-events-to", "delay-run", "poll", "stop-signal", "stop-timeout", "timeout"}})
		if len(ops) == 0 {
			return next{}, true
		}
		return runsScript(ops...), true
	case "nodemon":
		return valuedScripts(rest, optSpec{value: "xwediV", long: []string{"exec", "watch", "ext", "delay", "ignore",
			"signal", "config"}, permute: true}, "x", "exec"), true
	case "entr":
		opts, ops := scanOptions(rest, optSpec{})
		if has(opts, "s") && len(ops) > 0 {
			return runsScript(ops[0]), true
		}
		return runs(ops), true
	case "cmake":
		return followCMake(rest), true
	case "coreutils":
		// The multicall binary: `coreutils --coreutils-prog=rm -rf x` is rm.
		for i, w := range rest {
			for _, opt := range []string{"--coreutils-prog=", "--coreutils-prog-shebang="} {
				if prog, ok := strings.CutPrefix(w.text, opt); ok {
					return runs(append([]arg{{text: prog, src: prog, lit: w.lit}}, rest[i+1:]...)), true
				}
			}
		}
		return next{}, true
	case "perf":
		if _, ops := scanOptions(rest, optSpec{}); len(ops) > 0 && oneOf(ops[0].text, "stat", "record", "trace", "mem", "c2c", "kmem", "lock", "sched") {
			_, cmd := scanOptions(ops[1:], optSpec{value: "eoCGpPtuxrFcmIjLW", long: []string{"event", "output",
				"cpu", "cgroup", "pid", "tid", "uid", "repeat", "freq", "count", "mmap-pages", "call-graph", "filter"}})
			return runs(cmd), true
		}
		return next{}, true
	case "sg":
		opts, ops := scanOptions(rest, optSpec{value: "c"})
		if script, ok := valueOf(opts, "c"); ok {
			return runsScript(script), true
		}
		if len(ops) > 1 {
			if ops[1].lit && ops[1].text == "-c" && len(ops) > 2 {
				return runsScript(ops[2]), true
			}
			return runsScript(ops[1:]...), true
		}
		return runs(shellArgv()), true
	case "bwrap":
		return followBwrap(rest), true
	case "start-stop-daemon":
		opts, ops := scanOptions(rest, optSpec{value: "xnpaucrgsNPkdbmtvRUT", long: []string{"exec", "name", "pidfile",
			"startas", "chuid", "chroot", "chdir", "group", "signal", "nicelevel", "procsched", "iosched", "umask",
			"retry", "user", "output", "notify-await", "notify-timeout"}, permute: true})
		if prog, ok := valueOf(opts, "a", "startas", "x", "exec"); ok {
			return runs(append([]arg{prog}, ops...)), true
		}
		return next{}, true
	}
	return next{}, false
}

// valuedScripts returns the values of the named options as shell scripts
// the program runs.
func valuedScripts(rest []arg, spec optSpec, names ...string) next {
	opts, _ := scanOptions(rest, spec)
	var n next
	for _, o := range opts {
		if oneOf(o.name, names...) && o.value.text != "" {
			n.scripts = append(n.scripts, []arg{o.value})
		}
	}
	return n
}

// followZip: `-TT cmd` (a two-letter option) and --unzip-command name
// the command zip tests the archive with.
func followZip(rest []arg) next {
	var n next
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case !w.lit:
		case w.text == "-TT" || w.text == "--unzip-command":
			if i+1 < len(rest) {
				i++
				n.scripts = append(n.scripts, []arg{rest[i]})
			}
		case strings.HasPrefix(w.text, "-TT"):
			// zip may take "-TT=cmd" as "cmd"; read so, the stricter way:
			// if it does not, it runs "=cmd", which no shell finds.
			n.scripts = append(n.scripts, []arg{literalArg(strings.TrimPrefix(w.text[3:], "="))})
		case strings.HasPrefix(w.text, "--unzip-command="):
			n.scripts = append(n.scripts, []arg{literalArg(strings.TrimPrefix(w.text, "--unzip-command="))})
		}
	}
	return n
}

// followTar: the commands tar pipes files through or runs at checkpoints.
func followTar(rest []arg) next {
	words := rest
	if len(rest) > 0 && rest[0].lit && rest[0].text != "" && rest[0].text[0] != '-' {
		words = append([]arg{literalArg("-" + rest[0].text)}, rest[1:]...) // `tar xf x.tar`
	}
	opts, _ := scanOptions(words, optSpec{value: "bCfFgHIKLNTVX", long: []string{"file", "directory",
		"to-command", "use-compress-program", "info-script", "new-volume-script", "checkpoint-action", "rsh-command",
		"exclude", "files-from", "transform", "xform", "format", "owner", "group", "mode", "mtime", "newer",
		"after-date", "label", "exclude-from", "index-file", "listed-incremental", "blocking-factor", "record-size",
		"tape-length", "volno-file", "level", "sort", "strip-components", "suffix", "backup", "occurrence",
		"checkpoint", "quoting-style", "quote-chars", "no-quote-chars", "atime-preserve", "pax-option", "warning",
		"hole-detection", "one-top-level", "starting-file"}, permute: true})
	var n next
	for _, o := range opts {
		switch {
		case oneOf(o.name, "I", "F", "to-command", "use-compress-program", "info-script", "new-volume-script", "rsh-command"):
			n.scripts = append(n.scripts, []arg{o.value})
		case o.name == "checkpoint-action":
			if cmd, ok := strings.CutPrefix(o.value.text, "exec="); ok {
				v := o.value
				v.text, v.src = cmd, cmd
				n.scripts = append(n.scripts, []arg{v})
			} else if !o.value.lit {
				n.opaque = "a tar checkpoint action decided at run time"
			}
		}
	}
	return n
}

// followSSH: ssh runs its command words through the remote shell (which
// may be this machine), and some of its options run local commands.
func followSSH(rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{value: "BbcDEeFIiJLlmOoPpQRSWw"})
	n := sshOptionScripts(opts)
	if len(ops) > 1 {
		n.scripts = append(n.scripts, ops[1:])
	}
	return n
}

// sshOptionScripts returns the local commands ssh's -o options run.
func sshOptionScripts(opts []option) next {
	var n next
	for _, o := range opts {
		if o.name != "o" {
			continue
		}
		key, value, ok := strings.Cut(o.value.text, "=")
		if !ok {
			key, value, ok = strings.Cut(o.value.text, " ")
		}
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand", "remotecommand", "permitlocalcommand":
			if strings.EqualFold(strings.TrimSpace(key), "permitlocalcommand") {
				continue
			}
			if !o.value.lit {
				n.opaque = "an ssh command option decided at run time"
				continue
			}
			n.scripts = append(n.scripts, []arg{literalArg(strings.TrimSpace(value))})
		}
	}
	return n
}
