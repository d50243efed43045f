package shellguard

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// command handles one effective command in named steps: it works out the
// program's name (git's own commands spelled as git), records the command
// (recordCommand), judges it (judge: the rules, the files it touches, the
// hazards of builtins, database shells and git settings), then follows
// what the program runs in turn (runInner). It returns why the command runs code
// besides its own program ("" when it runs none), which Commands reports
// for the command as written.
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
	if strings.Contains(name.text, "/") && a.runsDownloaded(name.text) {
		a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a program the line downloaded"}, false)
	}
	c := invocation{sc: sc, argv: argv, gitArgv: argv, base: programName(name.text), via: via, at: at, in: in, hops: hops}
	if sub, ok := strings.CutPrefix(c.base, "git-"); ok && sub != "" {
		// git's commands run directly from its exec path are git's:
		// `/usr/lib/git-core/git-reset --hard` is `git reset --hard`.
		c.gitArgv = append([]arg{literalArg("git"), literalArg(sub)}, argv[1:]...)
		c.base = "git"
	}
	c.inner = append(via[:len(via):len(via)], c.base)
	why := ""
	if a.runShadow(sc, argv, via, at, in, hops) {
		why = "the line redefines " + programName(name.text)
	}
	if f := a.funcs[programName(name.text)]; f != nil {
		a.callFunction(sc, f, in, at)
		why = "runs a function the line declares"
	}
	if c.base == "git" {
		c.git = a.readGit(sc, c.gitArgv)
	}
	if !a.recordCommand(&c) {
		return why
	}
	return a.runInner(c, a.judge(c, why))
}

// invocation is one effective command while command handles it.
type invocation struct {
	sc      *scope
	argv    []arg    // the words as they run
	gitArgv []arg    // argv, with git's own commands spelled as git (git-reset as git reset)
	base    string   // the program's name: programName, or git for git's own commands
	via     []string // the wrappers and shells it runs through
	inner   []string // via and the program: what runs the commands it runs
	at      string   // the command as written, for refusals
	in      *input   // what feeds its standard input, or nil
	hops    int      // how many wrappers it runs through

	git      *gitInvocation // git's reading of its words, for git
	gitIndex int            // its call's index in Analysis.Git, -1 when not recorded
}

// recordCommand adds the command to the effective commands, and its git
// call to the line's; it reports false when the budget ran out. What an
// approximation or a replayed function body runs is not recorded: it is
// not what runs.
func (a *engine) recordCommand(c *invocation) bool {
	c.gitIndex = -1
	if a.quiet > 0 || a.replaying > 0 {
		return true
	}
	if !a.charge(len(c.argv)) { // recording copies every word: wrappers within wrappers copy them again
		return false
	}
	a.out.effective = append(a.out.effective, toCommand(c.argv, c.via))
	if c.git != nil {
		a.out.git = append(a.out.git, c.git.call(c.argv, c.gitArgv, c.via, len(a.out.effective)-1))
		c.gitIndex = len(a.out.git) - 1
	}
	return true
}

// judge applies the rules to the command (to what a git alias stands for,
// when it expands), records the files it touches and where a cd takes the
// shell, and checks what builtins, database shells and git settings run.
// It returns why the command runs other code: why, or a later finding.
func (a *engine) judge(c invocation, why string) string {
	sc, base, at := c.sc, c.base, c.at
	judged := c.gitArgv
	if c.git != nil && c.git.expanded != nil {
		judged = c.git.expanded
	}
	if r := a.rule(sc, base, judged, c.in); r.category != "" {
		shown := at
		if r.fromInput && c.in != nil {
			shown = c.in.pipeline(at)
		}
		a.report(Verdict{Command: shown, Category: r.category, Why: r.why}, false)
	}
	a.commandAccesses(sc, base, c.argv, at, c.hops)
	if oneOf(base, "cd", "pushd", "popd") && len(c.via) >= len(sc.via) && onlyBuiltins(c.via[len(sc.via):]) {
		a.changeDir(sc, base, c.argv)
	}
	if w := a.builtinHazard(sc, base, c.argv, at); w != "" {
		why = w
	}
	if isDatabaseClient(base) {
		if w := a.dbShell(sc, base, c.argv, c.in, c.inner, at); w != "" {
			why = w
		}
	}
	if c.git != nil {
		if w := a.gitRuns(sc, c.git, c.gitIndex, c.inner, at); w != "" {
			why = w
		}
	}
	return why
}

// runInner follows what the program runs besides itself (see follow):
// commands, shell scripts, program files and code, what it reads from its
// input. It returns why the command runs other code: why, or what the
// program's words say when why is "".
func (a *engine) runInner(c invocation, why string) string {
	sc, base, at, in := c.sc, c.base, c.at, c.in
	n := a.follow(sc, base, c.argv)
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
		a.command(sc, e, c.inner, at, execIn, c.hops+1)
	}
	for _, s := range n.scripts {
		a.runScriptFed(sc, s, c.inner, at, in)
	}
	for _, s := range n.piped {
		a.runScriptFed(sc, s, c.inner, at, &input{line: at})
	}
	if n.file != nil {
		a.programFile(sc, base, *n.file, at)
	}
	if n.code != nil && !n.code.lit && a.downloadsIn(sc, n.code.node()) {
		a.report(Verdict{Command: at, Category: CategoryPipeShell, Why: "runs a downloaded script"}, false)
	}
	if n.stdin != readsNothing {
		a.stdinProgram(sc, n.stdin, in, c.inner, at)
	}
	if n.noScript && len(c.via) > 0 && oneOf(c.via[len(c.via)-1], "xargs", "parallel") {
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
