package shellguard

// followTmux: the tmux commands that run a shell command (new-session
// 'cmd', run-shell, send-keys types into a shell…).
func followTmux(rest []arg) next {
	_, ops := scanOptions(rest, optSpec{value: "cCfLST"})
	var n next
	for len(ops) > 0 {
		cmd := ops[0].text
		var args []arg
		end := len(ops)
		for i := 1; i < len(ops); i++ {
			if ops[i].lit && (ops[i].text == ";" || ops[i].text == `\;`) {
				end = i
				break
			}
		}
		args, ops = ops[1:end], ops[min(end+1, len(ops)):]
		spec, ok := tmuxCommandSpec(cmd)
		if !ok {
			continue
		}
		_, words := scanOptions(args, spec)
		if len(words) == 0 {
			continue
		}
		if cmd == "if-shell" || cmd == "if" {
			words = words[:1]
		}
		n.scripts = append(n.scripts, words)
	}
	return n
}

// tmuxCommandSpec returns the options of the tmux commands that run a
// shell command, whose operands are that command.
func tmuxCommandSpec(cmd string) (optSpec, bool) {
	switch cmd {
	case "new-session", "new":
		return optSpec{value: "cefFnstxy"}, true
	case "new-window", "neww":
		return optSpec{value: "ceFnt"}, true
	case "split-window", "splitw":
		return optSpec{value: "ceFlpt"}, true
	case "respawn-pane", "respawnp", "respawn-window", "respawnw":
		return optSpec{value: "cet"}, true
	case "display-popup", "popup":
		return optSpec{value: "bcdehsStTwxy"}, true
	case "run-shell", "run", "if-shell", "if":
		return optSpec{value: "dtc"}, true
	case "pipe-pane", "pipep":
		return optSpec{value: "t"}, true
	case "send-keys", "send":
		return optSpec{value: "Nt"}, true
	}
	return optSpec{}, false
}

// followScreen: screen runs its command words; -X sends it commands, which
// may type into a shell.
func followScreen(rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{value: "cehpSTlsXx"})
	if has(opts, "X") {
		return next{opaque: "sends commands to a screen session"}
	}
	if has(opts, "r", "R", "x", "ls", "list", "wipe") || len(ops) == 0 {
		return next{}
	}
	return runs(ops)
}

// followCrontab: `crontab -` and `crontab` read a table of commands from
// their input; a file operand is a file the guard does not read.
func followCrontab(rest []arg) next {
	opts, ops := scanOptions(rest, optSpec{value: "u"})
	if has(opts, "l", "r", "e", "i", "V") || len(ops) > 0 && !isStdinPath(ops[0]) {
		return next{}
	}
	return next{stdin: readsCrontab}
}

// followHyperfine: every operand and the --prepare, --setup, --cleanup
// and --conclude values are commands run through a shell.
func followHyperfine(rest []arg) next {
	valued := []string{"prepare", "setup", "cleanup", "conclude", "shell", "warmup", "min-runs", "max-runs", "runs",
		"export-json", "export-csv", "export-markdown", "export-asciidoc", "export-orgmode", "parameter-scan",
		"parameter-step-size", "parameter-list", "command-name", "time-unit", "style", "sort", "output", "input",
		"reference"}
	opts, ops := scanOptions(rest, optSpec{value: "pscwmMrSLPDnuNi", long: valued, permute: true})
	var n next
	for _, o := range opts {
		if oneOf(o.name, "p", "prepare", "s", "setup", "c", "cleanup", "conclude", "reference") {
			n.scripts = append(n.scripts, []arg{o.value})
		}
	}
	for _, w := range ops {
		n.scripts = append(n.scripts, []arg{w})
	}
	return n
}
