package shellguard

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// command handles one effective command: it records it, applies the
// rules, then follows whatever the program runs in turn. It returns why
// the command runs code besides its own program ("" when it runs none),
// which Commands reports for the command as written.
func (a *engine) command(sc *scope, argv []arg, via []string, at string, in *input, hops int) string {
	if a.stopped || len(argv) == 0 {
		return ""
	}
	if hops > maxHops {
		a.opaque(at, "too many wrapper programs to check")
		return "runs other commands"
	}
	name := argv[0]
	if !name.lit || name.glob {
		a.opaque(at, "the program to run is decided at run time")
		return "runs a program decided at run time"
	}
	base := programName(name.text)
	if strings.Contains(name.text, "/") && a.runsDownloaded(name.text) {
		a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a program the line downloaded"}, false)
	}
	gitArgv := argv
	if sub, ok := strings.CutPrefix(base, "git-"); ok && sub != "" {
		// git's commands run directly from its exec path are git's:
		// `/usr/lib/git-core/git-reset --hard` is `git reset --hard`.
		gitArgv = append([]arg{literalArg("git"), literalArg(sub)}, argv[1:]...)
		base = "git"
	}
	why := ""
	if a.runShadow(sc, argv, via, at, in, hops) {
		why = "the line redefines " + programName(name.text)
	}
	if f := a.funcs[programName(name.text)]; f != nil {
		a.callFunction(sc, f, in, at)
		why = "runs a function the line declares"
	}
	judged := gitArgv
	var git *gitInvocation
	gitIndex := -1
	if base == "git" {
		git = a.readGit(sc, gitArgv)
		if git.expanded != nil {
			judged = git.expanded // the rules judge what the alias stands for
		}
	}
	if a.quiet == 0 && a.replaying == 0 { // an approximation's commands are not what runs
		if !a.charge(len(argv)) { // recording copies every word: wrappers within wrappers copy them again
			return why
		}
		a.out.effective = append(a.out.effective, toCommand(argv, via))
		if git != nil {
			a.out.git = append(a.out.git, git.call(argv, gitArgv, via, len(a.out.effective)-1))
			gitIndex = len(a.out.git) - 1
		}
	}
	if r := a.rule(sc, base, judged, in); r.category != "" {
		shown := at
		if r.fromInput && in != nil {
			shown = in.pipeline(at)
		}
		a.report(Verdict{Command: shown, Category: r.category, Why: r.why}, false)
	}
	a.commandAccesses(sc, base, argv, at, hops)
	if oneOf(base, "cd", "pushd", "popd") && len(via) >= len(sc.via) && onlyBuiltins(via[len(sc.via):]) {
		a.changeDir(sc, base, argv)
	}
	if w := a.builtinHazard(sc, base, argv, at); w != "" {
		why = w
	}
	inner := append(via[:len(via):len(via)], base)
	if isDatabaseClient(base) {
		if w := a.dbShell(sc, base, argv, in, inner, at); w != "" {
			why = w
		}
	}
	if git != nil {
		if w := a.gitRuns(sc, git, gitIndex, inner, at); w != "" {
			why = w
		}
	}
	n := a.follow(sc, base, argv)
	if len(n.assigns) > 0 {
		if w := a.envWords(sc, n.assigns, at); w != "" {
			why = w
		}
	}
	if n.opaque != "" {
		a.opaque(at, n.opaque)
	}
	execIn := in
	if len(n.execs) > 1 || oneOf(base, "find", "fd", "fdfind", "xargs", "parallel", "watch") {
		execIn = nil // the commands they run do not read their input
	}
	for _, e := range n.execs {
		a.command(sc, e, inner, at, execIn, hops+1)
	}
	for _, s := range n.scripts {
		a.runScriptFed(sc, s, inner, at, in)
	}
	for _, s := range n.piped {
		a.runScriptFed(sc, s, inner, at, &input{line: at})
	}
	if n.file != nil {
		a.programFile(sc, base, *n.file, at)
	}
	if n.code != nil && !n.code.lit && a.downloadsIn(sc, n.code.node()) {
		a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a downloaded script"}, false)
	}
	if n.stdin != readsNothing {
		a.stdinProgram(sc, n.stdin, in, inner, at)
	}
	if n.noScript && len(via) > 0 && oneOf(via[len(via)-1], "xargs", "parallel") {
		a.opaque(at, "runs a script built at run time")
	}
	if w := n.reason(); w != "" && why == "" {
		why = w
	}
	return why
}

// onlyBuiltins reports a command run directly or through `builtin` or
// `command`, which run a cd in the same shell.
func onlyBuiltins(via []string) bool {
	for _, v := range via {
		if v != "builtin" && v != "command" {
			return false
		}
	}
	return true
}

// words evaluates a command's words and pays for the text it built, which
// matters when each of many nested $(…) holds all the ones inside it.
func (a *engine) words(sc *scope, ws []*syntax.Word) ([]arg, bool) {
	argv, ok := sc.evalWords(ws)
	if !ok {
		return nil, false
	}
	cost := len(argv)
	for _, w := range argv {
		cost += len(w.text)
	}
	return argv, a.charge(cost)
}

func toCommand(argv []arg, via []string) Command {
	c := Command{Args: make([]string, len(argv)), Literal: true, Via: slices.Clone(via)}
	for i, w := range argv {
		c.Args[i] = w.value()
		c.Literal = c.Literal && w.lit
	}
	return c
}
