package shellguard

import "mvdan.cc/sh/v3/syntax"

// forkBomb refuses a function that starts copies of itself in a pipeline
// or in the background, directly or through other functions the line
// declares (`:(){ :|:& };:`, `a(){ b|b& }; b(){ a|a& }`), whatever the
// names: the structure is a cycle of calls with a spawning call in it. It
// runs once fn is declared, so a cycle closed by fn's body is found.
func (a *engine) forkBomb(sc *scope, fn *syntax.FuncDecl) {
	if fn.Name == nil || fn.Body == nil {
		return
	}
	self := fn.Name.Value
	seen := map[call]bool{} // a function reached, and whether through a spawn
	stack := []call{{name: self}}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := a.funcs[cur.name]
		if f == nil || seen[cur] {
			continue
		}
		seen[cur] = true
		for _, c := range a.calls(f.sc, f.body) {
			next := call{name: c.name, spawned: cur.spawned || c.spawned}
			if next.name == self && next.spawned {
				a.report(Verdict{Command: sc.slice(fn.Pos(), fn.End()), Category: CategoryForkBomb, Why: "fork bomb"}, false)
				return
			}
			stack = append(stack, next)
		}
		if a.stopped {
			return
		}
	}
}

// call is a command a function body runs by name; spawned marks one in a
// pipeline or in the background, which runs as a process of its own.
type call struct {
	name    string
	spawned bool
}

// calls lists the commands body runs by name.
func (a *engine) calls(sc *scope, body syntax.Node) []call {
	var out []call
	var spawning []bool // per open node: inside a pipeline or background job
	syntax.Walk(body, func(n syntax.Node) bool {
		if a.stopped || !a.charge(1) {
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
			if len(n.Args) > 0 {
				out = append(out, call{name: sc.evalWord(n.Args[0]).text, spawned: in})
			}
		}
		spawning = append(spawning, in)
		return true
	})
	return out
}
