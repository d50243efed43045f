package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runScript checks a script a program hands to a shell, given as words
// the shell joins with spaces. It returns the script's index in
// Analysis.Scripts, or -1 when it was not parsed.
func (a *engine) runScript(sc *scope, words []arg, via []string, at string) int {
	return a.runScriptFed(sc, words, via, at, nil)
}

// runScriptFed is runScript for a script that reads in: the input of the
// command that runs it (`curl … | bash -c 'source /dev/stdin'`). A script
// eval, trap or alias runs in the same shell shares its directory; a
// script a new shell runs starts where the command runs.
func (a *engine) runScriptFed(sc *scope, words []arg, via []string, at string, in *input) int {
	text, lit := joinArgs(words)
	dirs := sc.dirs
	if dirs == nil {
		dirs = newDirState()
	}
	if len(via) == 0 || !oneOf(via[len(via)-1], "eval", "trap", "alias") {
		dirs = dirs.clone()
	}
	if lit {
		return a.scanScript(&scope{src: text, depth: sc.depth + 1, via: via, parent: sc, stdin: in, dirs: dirs}, at)
	}
	nodes := make([]syntax.Node, 0, len(words))
	for _, w := range words {
		nodes = append(nodes, w.node())
	}
	return a.dynamicScript(sc, text, via, at, nodes...)
}

// dynamicScript handles a script whose text is only known at run time
// (`sh -c "rm -rf $dir"`, `eval "$(curl …)"`). It cannot be checked, so it
// is refused; the script is first read as written, expansions left in
// place, so that a plain danger in it gets its own, clearer refusal. It
// returns the index of that approximation in Analysis.Scripts, or -1.
func (a *engine) dynamicScript(sc *scope, approx string, via []string, at string, nodes ...syntax.Node) int {
	a.quiet++
	index := a.scanScript(&scope{src: approx, depth: sc.depth + 1, via: via, parent: sc, dirs: newDirState()}, at)
	a.quiet--
	if a.stopped {
		return index
	}
	if a.downloadsIn(sc, nodes...) {
		a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a downloaded script"}, true)
		return index
	}
	a.opaque(at, "runs a script built at run time")
	return index
}

// programFile handles the file a shell or interpreter reads its program
// from. A literal path is a documented gap (the guard does not read
// files); a path decided at run time is refused for a shell, and for
// any interpreter when it comes from a download (`python <(curl …)`).
func (a *engine) programFile(sc *scope, base string, file arg, at string) {
	shell := isShell(base) || base == "source" || base == "."
	if file.lit && isDescriptorPath(file.text) {
		// /dev/fd/3: a descriptor opened elsewhere on the line.
		if a.lineDownloads() {
			a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a downloaded script"}, shell)
		} else if shell {
			a.opaque(at, "runs a script from a descriptor opened at run time")
		}
		return
	}
	if file.lit {
		if a.runsDownloaded(file.text) {
			a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a script the line downloaded"}, shell)
		}
		return
	}
	if a.downloadsIn(sc, file.node()) {
		a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a downloaded script"}, shell)
		return
	}
	if shell {
		a.opaque(at, "runs a script file chosen at run time")
	}
}

// stdinProgram handles a shell or interpreter that reads its program from
// standard input, given what feeds it.
func (a *engine) stdinProgram(sc *scope, kind reader, in *input, via []string, at string) {
	switch {
	case in == nil:
		return // the caller's input: the agent runs commands with none
	case in.downloader:
		why := "pipes a download into a shell"
		if kind != readsShell {
			why = "pipes a download into an interpreter"
		}
		a.report(Verdict{Command: in.pipeline(at), Category: CategoryPipeShell, Why: why}, kind == readsShell)
	case kind == readsOther || in.file:
		return // another language, or a file on disk: documented gaps
	case in.known && in.lit && kind == readsCrontab:
		a.scanScript(&scope{src: crontabCommands(in.text), depth: sc.depth + 1, via: via, parent: sc, dirs: newDirState()}, at)
	case in.known && in.lit:
		a.scanScript(&scope{src: in.text, depth: sc.depth + 1, via: via, parent: sc, dirs: newDirState()}, at)
	case in.known:
		a.dynamicScript(sc, in.text, via, at, in.node)
	default:
		a.opaque(in.pipeline(at), "pipes output made at run time into a shell")
	}
}

// feedOutputSubstitutions records what the commands in a >(…) read: the
// data the command writes, made at run time, and a download when the
// command downloads or is fed one (`curl … | tee >(sh)`, `curl -o >(sh) …`).
func (a *engine) feedOutputSubstitutions(sc *scope, st *syntax.Stmt, argv []arg, in *input, at string) {
	var feed *input
	visit := func(w *syntax.Word) {
		for _, p := range w.Parts {
			ps, ok := p.(*syntax.ProcSubst)
			if !ok || ps.Op != syntax.CmdOut {
				continue
			}
			if feed == nil {
				feed = &input{line: at, downloader: (in != nil && in.downloader) || a.downloads(sc, argv, 0)}
			}
			for _, s := range ps.Stmts {
				a.setFeed(s, feed)
			}
		}
	}
	for _, w := range st.Cmd.(*syntax.CallExpr).Args {
		visit(w)
	}
	for _, r := range st.Redirs {
		if r.Word != nil {
			visit(r.Word)
		}
	}
}

// isDescriptorPath reports a path that names an open descriptor other
// than standard input (/dev/fd/3, /proc/self/fd/3).
func isDescriptorPath(p string) bool {
	for _, prefix := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			return rest != "0"
		}
	}
	return false
}

// crontabCommands turns a crontab into the commands it runs, one a line:
// each entry without its five time fields (or its @keyword); comments and
// NAME=value lines dropped.
func crontabCommands(table string) string {
	var b strings.Builder
	for line := range strings.Lines(table) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#") || isAssignment(fields[0]):
			continue
		case strings.HasPrefix(fields[0], "@"):
			fields = fields[1:]
		case len(fields) > 5:
			fields = fields[5:]
		default:
			continue
		}
		b.WriteString(strings.Join(fields, " "))
		b.WriteByte('\n')
	}
	return b.String()
}
