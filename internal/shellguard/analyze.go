package shellguard

import (
	"errors"
	"fmt"
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep the guard's time bounded on any input. A script handed
// to a shell is parsed again, so nesting multiplies work; the budget counts
// parsed bytes, visited nodes and evaluated words across all of it.
const (
	maxDepth      = 4         // scripts within scripts (sh -c "eval 'bash -c …'")
	maxHops       = 32        // wrappers within wrappers (sudo nice env timeout …)
	maxNesting    = 1000      // syntax nested within syntax ((((…)))), a && b && …
	maxSource     = 256 << 10 // longest command line checked at all
	budgetBase    = 1 << 16
	budgetPerByte = 8
)

// scope is one script being analysed: the command line itself, or a script
// it hands to a shell (sh -c, eval, a here-document fed to bash…).
type scope struct {
	src    string   // the text the script was parsed from
	depth  int      // 0 for the command line
	via    []string // the wrappers and shells that run this script
	parent *scope   // the script that runs this one, nil for the command line
	file   *syntax.File
	inv    inventory // what the guard's walk saw as written

	vars     map[string][]string // literal values assigned to variables, see engine.values
	varsDone bool
}

// slice returns the source between two positions of this scope's parse.
func (sc *scope) slice(from, to syntax.Pos) string {
	if !from.IsValid() || !to.IsValid() {
		return ""
	}
	i, j := from.Offset(), to.Offset()
	if i > j || j > uint(len(sc.src)) {
		return ""
	}
	return sc.src[i:j]
}

// engine walks a command line once and fills in its Analysis: it applies
// every rule (keeping every finding), records the effective commands and
// git calls, and parses each script the line hands to a shell.
type engine struct {
	src    string
	out    *Analysis
	budget int
	parser *syntax.Parser

	findings []Verdict
	quiet    int // > 0 while reading an approximation, whose own oddities are not findings
	stopped  bool

	feeds map[*syntax.Stmt]*input        // what a pipeline stage reads
	flat  map[*syntax.BinaryCmd]struct{} // pipes already handled as part of a longer pipeline
}

func newEngine(src string, out *Analysis) *engine {
	return &engine{
		src:    src,
		out:    out,
		budget: budgetBase + budgetPerByte*len(src),
		parser: newParser(),
	}
}

func (a *engine) run() {
	if len(a.src) > maxSource {
		a.out.parseErr = tooLong()
		a.giveUp("too long to check (over 256 KiB)")
		return
	}
	a.scanScript(&scope{src: a.src}, a.src)
}

// report records a finding. dynamic marks a finding where what runs is
// unknown (a downloaded script fed to a shell), which makes Effective
// fail even though the finding names a more specific category.
func (a *engine) report(v Verdict, dynamic bool) {
	opaque := v.Category == CategoryOpaque
	if opaque && a.quiet > 0 {
		return
	}
	if (dynamic || opaque) && a.quiet == 0 && a.out.effectiveErr == nil {
		a.out.effectiveErr = &AnalysisError{Command: v.Command, Why: v.Why}
	}
	a.findings = append(a.findings, v)
}

func (a *engine) opaque(at, why string) {
	a.report(Verdict{Command: at, Category: CategoryOpaque, Why: why}, true)
}

// charge spends budget and reports false (and an opaque finding, once)
// when it has run out.
func (a *engine) charge(n int) bool {
	a.budget -= n
	if a.budget >= 0 {
		return true
	}
	a.giveUp("too large or too deeply nested to check")
	return false
}

// giveUp stops the analysis at a limit. The refusal is recorded even while
// reading an approximation, so that stopping never passes a line.
func (a *engine) giveUp(why string) {
	if a.stopped {
		return
	}
	a.stopped = true
	v := Verdict{Command: a.src, Category: CategoryOpaque, Why: why}
	if a.out.effectiveErr == nil {
		a.out.effectiveErr = &AnalysisError{Command: v.Command, Why: v.Why}
	}
	a.findings = append(a.findings, v)
}

// scanScript parses a script and checks everything in it. at is the
// command that hands the script over, for the refusal. It returns the
// script's index in Analysis.Scripts, or -1 for the line itself and for a
// script that was not parsed.
func (a *engine) scanScript(sc *scope, at string) int {
	if a.stopped {
		return -1
	}
	if sc.depth > maxDepth {
		a.opaque(at, fmt.Sprintf("nests shells more than %d deep", maxDepth))
		return -1
	}
	if !a.charge(len(sc.src)) {
		return -1
	}
	f, err := parseWith(a.parser, sc.src)
	a.out.parses++
	index := a.record(sc, f, err)
	if err != nil {
		a.opaque(at, "not valid shell syntax: "+syntaxMessage(err))
		return index
	}
	sc.file = f
	a.scanNode(sc, f)
	a.keepInventory(sc, index)
	return index
}

// record keeps a parsed script in the Analysis: the line's own parse, or
// one more entry of Scripts.
func (a *engine) record(sc *scope, f *syntax.File, err error) int {
	if sc.parent == nil {
		a.out.file, a.out.parseErr = f, err
		return -1
	}
	a.out.scripts = append(a.out.scripts, Script{
		Source:      sc.src,
		File:        f,
		ParseErr:    err,
		Via:         slices.Clone(sc.via),
		Depth:       sc.depth,
		Approximate: a.quiet > 0,
	})
	return len(a.out.scripts) - 1
}

// keepInventory stores what the guard's walk noted about a script as
// written.
func (a *engine) keepInventory(sc *scope, index int) {
	inv := sc.inv
	inv.declared = nil // only needed during the walk
	if index < 0 {
		a.out.line = inv
		return
	}
	s := &a.out.scripts[index]
	s.Commands, s.Redirects, s.Assignments = inv.commands, inv.redirects, inv.assignments
}

// syntaxMessage is the parser's own message ("1:4: reached EOF without
// closing quote '").
func syntaxMessage(err error) string {
	if inner := errors.Unwrap(err); inner != nil {
		return inner.Error()
	}
	return err.Error()
}

// scanNode visits every node under n: simple commands (in lists,
// pipelines, subshells, functions, loops, $(…), <(…) and here-documents),
// pipelines as a whole, and function declarations.
func (a *engine) scanNode(sc *scope, n syntax.Node) {
	nesting := 0
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil {
			nesting--
			return true
		}
		if a.stopped || !a.charge(1) {
			return false
		}
		if nesting++; nesting > maxNesting {
			a.giveUp("too deeply nested to check")
			return false
		}
		sc.inv.note(sc, n)
		switch n := n.(type) {
		case *syntax.Stmt:
			a.stmt(sc, n)
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				a.pipeline(sc, n)
			}
		case *syntax.FuncDecl:
			a.forkBomb(sc, n)
		}
		return !a.stopped
	})
}

// stmt checks one statement: its redirections, and its simple command if
// it is one.
func (a *engine) stmt(sc *scope, st *syntax.Stmt) {
	a.deviceRedirects(sc, st)
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	end := call.End()
	for _, r := range st.Redirs {
		if r.Word != nil && r.Word.End().After(end) {
			end = r.Word.End()
		}
	}
	at := sc.slice(call.Pos(), end)
	argv, ok := a.words(sc, call.Args)
	if !ok {
		if !a.stopped {
			a.opaque(at, "brace expansion too large to check")
		}
		return
	}
	in := a.stdinOf(sc, st)
	a.feedOutputSubstitutions(sc, st, argv, in, at)
	a.command(sc, argv, sc.via, at, in, 0)
}

// command handles one effective command: it records it, applies the
// rules, then follows whatever the program runs in turn.
func (a *engine) command(sc *scope, argv []arg, via []string, at string, in *input, hops int) {
	if a.stopped || len(argv) == 0 {
		return
	}
	if hops > maxHops {
		a.opaque(at, "too many wrapper programs to check")
		return
	}
	name := argv[0]
	if !name.lit || name.glob {
		a.opaque(at, "the program to run is decided at run time")
		return
	}
	base := programName(name.text)
	judged := argv
	var git *gitInvocation
	gitIndex := -1
	if base == "git" {
		git = a.readGit(sc, argv)
		if git.expanded != nil {
			judged = git.expanded // the rules judge what the alias stands for
		}
	}
	if a.quiet == 0 { // an approximation's commands are not what runs
		if !a.charge(len(argv)) { // recording copies every word: wrappers within wrappers copy them again
			return
		}
		a.out.effective = append(a.out.effective, toCommand(argv, via))
		if git != nil {
			a.out.git = append(a.out.git, git.call(argv, via, len(a.out.effective)-1))
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
	if git != nil && git.unresolved != "" {
		a.opaque(at, git.unresolved)
	}
	n := a.follow(sc, base, argv)
	inner := append(via[:len(via):len(via)], base)
	execIn := in
	if len(n.execs) > 1 || oneOf(base, "find", "fd", "fdfind", "xargs", "parallel", "watch") {
		execIn = nil // the commands they run do not read their input
	}
	for _, e := range n.execs {
		a.command(sc, e, inner, at, execIn, hops+1)
	}
	for _, s := range n.scripts {
		a.runScript(sc, s, inner, at)
	}
	if git != nil {
		a.gitScripts(sc, git, gitIndex, inner, at)
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
