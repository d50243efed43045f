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

	stdin *input // what the script reads when nothing else says: its runner's input, or `exec < file`
	dirs  *dirState
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

	feeds         map[*syntax.Stmt]*input        // what a pipeline stage reads
	stages        map[*syntax.Stmt]bool          // the stages of pipelines, which run in subshells
	downloadsSeen int                            // lineDownloads' answer: 0 not worked out, 1 no, 2 yes
	flat          map[*syntax.BinaryCmd]struct{} // pipes already handled as part of a longer pipeline

	facts     facts          // what the whole line assigns and redefines (see facts)
	consulted map[string]int // what judgements assumed of the facts (see engine.note)
	// seededShadows is how many redefinitions the walk started with.
	seededShadows int
	funcs         map[string]*funcDef
	runsCode      map[*syntax.CallExpr]string // why a command as written runs other code
	partSlab      []PathPart                  // backing for the one-part paths of plain words (see onePart)
	replaying     int                         // > 0 while a function body is judged again for its caller's input
	downloaded    []string                    // files a download on the line saved (see noteDownloadOutputs)
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
	a.gather(sc, f)
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
