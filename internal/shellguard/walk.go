package shellguard

import "mvdan.cc/sh/v3/syntax"

// frame is what the walk keeps for one open node: the input its commands
// read unless they say otherwise, and the directory state to restore when
// it ends (a subshell's cd does not outlive it).
type frame struct {
	in      *input
	restore *dirState
}

// scanNode visits every node under n: simple commands (in lists,
// pipelines, subshells, functions, loops, $(…), <(…) and here-documents),
// pipelines as a whole, function declarations, assignments, and the
// arithmetic the shell evaluates. It follows what each command reads
// (a command inherits the input of the statement around it: a loop or a
// block fed by a pipe or a redirection, `$(…)` included) and where it runs
// (cd, pushd and popd, undone at the end of a subshell).
func (a *engine) scanNode(sc *scope, n syntax.Node) {
	if sc.dirs == nil {
		sc.dirs = newDirState()
	}
	frames := make([]frame, 0, 32)
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil {
			f := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			if f.restore != nil {
				sc.dirs = f.restore
			}
			return true
		}
		if a.stopped || !a.charge(1) {
			return false
		}
		if len(frames) >= maxNesting {
			a.giveUp("too deeply nested to check")
			return false
		}
		if a.replaying == 0 {
			sc.inv.note(sc, n)
			if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				if why := a.runsCode[call]; why != "" {
					sc.inv.commands[len(sc.inv.commands)-1].RunsCode = why
				}
			}
		}
		inherited := sc.stdin
		if len(frames) > 0 && frames[len(frames)-1].in != nil {
			inherited = frames[len(frames)-1].in
		}
		f := frame{in: inherited}
		isolate := func() {
			f.restore = sc.dirs
			sc.dirs = sc.dirs.clone()
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background || n.Coprocess || a.stages[n] {
				isolate()
			}
			f.in = a.stmt(sc, n, inherited)
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
			isolate()
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				a.pipeline(sc, n, inherited)
			}
		case *syntax.FuncDecl:
			a.declare(sc, n)
			a.forkBomb(sc, n)
			f.in = nil // the body reads its caller's input, not this one
			isolate()
		case *syntax.ForClause:
			a.loopDirs(sc, n)
			if c, ok := n.Loop.(*syntax.CStyleLoop); ok {
				a.arithmetic(sc, c, "a for (( … )) loop")
			}
		case *syntax.WhileClause:
			a.loopDirs(sc, n)
		case *syntax.ArithmCmd:
			a.arithmetic(sc, n.X, sc.slice(n.Pos(), n.End()))
		case *syntax.ArithmExp:
			a.arithmetic(sc, n.X, sc.slice(n.Pos(), n.End()))
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				a.arithmetic(sc, x, sc.slice(n.Pos(), n.End()))
			}
		case *syntax.TestClause:
			a.testArithmetic(sc, n)
		case *syntax.ParamExp:
			a.paramEvaluates(sc, n)
		case *syntax.Assign:
			if n.Index != nil {
				a.arithmetic(sc, n.Index, sc.slice(n.Pos(), n.End()))
			}
			a.assignment(sc, n)
		case *syntax.DeclClause:
			a.declClause(sc, n)
		}
		if a.stopped {
			return false
		}
		frames = append(frames, f)
		return true
	})
}

// loopDirs: a cd inside a loop takes the shell further on each pass, so
// where the loop's commands run is unknown.
func (a *engine) loopDirs(sc *scope, loop syntax.Node) {
	if sc.dirs != nil && !sc.dirs.any && changesDir(loop) {
		sc.dirs.any = true
	}
}

// stmt checks one statement: its redirections, and its simple command if
// it is one. It returns what the statement reads, which the commands
// inside it (a block, a loop, a substitution) read too.
func (a *engine) stmt(sc *scope, st *syntax.Stmt, inherited *input) *input {
	own := a.ownInput(sc, st)
	in := own
	if in == nil && a.feeds != nil {
		in = a.feeds[st]
	}
	if in == nil {
		in = inherited
	}
	at := sc.slice(st.Pos(), st.End())
	call, ok := st.Cmd.(*syntax.CallExpr)
	if ok && len(call.Args) > 0 {
		end := call.End()
		for _, r := range st.Redirs {
			if r.Word != nil && r.Word.End().After(end) {
				end = r.Word.End()
			}
		}
		at = sc.slice(call.Pos(), end)
	}
	for _, r := range st.Redirs {
		if r.Word != nil && r.Hdoc == nil {
			a.redirectAccess(sc, r.Op, sc.evalWord(r.Word), at)
		}
	}
	if !ok || len(call.Args) == 0 {
		return in
	}
	argv, ok := a.words(sc, call.Args)
	if !ok {
		if !a.stopped {
			a.opaque(at, "brace expansion too large to check")
		}
		return in
	}
	if len(argv) == 1 && argv[0].lit && argv[0].text == "exec" && own != nil {
		sc.stdin = own // `exec < file`: what the rest of the script reads
	}
	a.feedOutputSubstitutions(sc, st, argv, in, at)
	why := a.command(sc, argv, sc.via, at, in, 0)
	a.noteDownloadOutputs(sc, st, argv)
	for _, as := range call.Assigns {
		if as.Name != nil && runsProgramVar(as.Name.Value) {
			why = "sets " + as.Name.Value + ", which makes programs run code"
		}
	}
	if why != "" && a.replaying == 0 && a.quiet == 0 {
		if a.runsCode == nil {
			a.runsCode = make(map[*syntax.CallExpr]string)
		}
		a.runsCode[call] = why
	}
	return in
}
