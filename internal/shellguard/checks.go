package shellguard

import "mvdan.cc/sh/v3/syntax"

// deviceRedirects refuses writing to a raw device through a redirection
// (`cat img > /dev/sda`).
func (a *engine) deviceRedirects(sc *scope, st *syntax.Stmt) {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
		default:
			continue
		}
		if r.Word == nil || !isRawDevice(sc.evalWord(r.Word).text) {
			continue
		}
		a.report(Verdict{Command: sc.slice(st.Pos(), r.Word.End()), Category: CategoryDisk, Why: whyDisk}, false)
		return
	}
}

// forkBomb refuses a function that calls itself in a pipeline or in the
// background (`:(){ :|:& };:`), whatever its name.
func (a *engine) forkBomb(sc *scope, fn *syntax.FuncDecl) {
	if fn.Name == nil || fn.Body == nil {
		return
	}
	self := fn.Name.Value
	var spawning []bool // per open node: inside a pipeline or background job
	found := false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		if found || a.stopped || !a.charge(1) {
			return false
		}
		if n == nil {
			spawning = spawning[:len(spawning)-1]
			return true
		}
		in := len(spawning) > 0 && spawning[len(spawning)-1]
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			in = in || n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		case *syntax.Stmt:
			in = in || n.Background || n.Coprocess
		case *syntax.CallExpr:
			if in && len(n.Args) > 0 && sc.evalWord(n.Args[0]).text == self {
				found = true
				return false
			}
		}
		spawning = append(spawning, in)
		return true
	})
	if found {
		a.report(Verdict{Command: sc.slice(fn.Pos(), fn.End()), Category: CategoryForkBomb, Why: "fork bomb"}, false)
	}
}
