package shellguard

import (
	"mvdan.cc/sh/v3/syntax"
)

// funcDef is a function the line declares.
type funcDef struct {
	body *syntax.Stmt
	sc   *scope
	// dirs: its body changes directory, so each call may take the shell
	// somewhere new.
	dirs bool
}

// declare records a function declaration.
func (a *engine) declare(sc *scope, fn *syntax.FuncDecl) {
	if fn.Name == nil || fn.Body == nil {
		return
	}
	if a.funcs == nil {
		a.funcs = make(map[string]*funcDef)
	}
	a.funcs[fn.Name.Value] = &funcDef{body: fn.Body, sc: sc, dirs: changesDir(fn.Body)}
}

// callFunction handles a call of a function the line declares. Its body
// was checked where it is written; what it does with the caller's input
// depends on the call, so when the call has input (`curl … | f`) the body
// is judged again reading it: a shell in the body then reads the download.
func (a *engine) callFunction(sc *scope, f *funcDef, in *input, at string) {
	if f.dirs && sc.dirs != nil {
		sc.dirs.any = true
	}
	if in == nil || a.replaying >= maxDepth {
		return
	}
	inner := *f.sc
	inner.stdin = &input{text: in.text, known: in.known, lit: in.lit, node: in.node, downloader: in.downloader,
		sql: in.sql, file: in.file, line: in.pipeline(at)}
	inner.dirs = newDirState()
	a.replaying++
	a.scanNode(&inner, f.body)
	a.replaying--
}

// runShadow judges what a command name the line redefined runs instead:
// `hash -p /bin/rm ls; ls -rf x` runs `/bin/rm -rf x`, and
// `alias ls='rm -rf'` makes `ls x` run `rm -rf x` (aliases need
// expand_aliases, which the line may turn on).
func (a *engine) runShadow(sc *scope, argv []arg, via []string, at string, in *input, hops int) bool {
	base := programName(argv[0].text)
	runs, ok := a.shadowOf(base)
	if !ok || len(runs) == 0 || programName(runs[0].text) == base && len(runs) == 1 {
		return false
	}
	next := make([]arg, 0, len(runs)+len(argv)-1)
	next = append(append(next, runs...), argv[1:]...)
	a.command(sc, next, append(via[:len(via):len(via)], "alias"), at, in, hops+1)
	return true
}
