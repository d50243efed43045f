package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDirs caps the working directories tracked for one shell; past it,
// the directory is unknown.
const maxDirs = 8

// dirState is where a shell's commands run, as far as the line tells:
// every directory the shell may be in at this point (cd may fail and leave
// it where it was, so a cd adds a directory rather than replacing one).
// The empty Path is the directory the line starts in; no candidates at
// all means only that one, which is how every shell starts.
type dirState struct {
	cands []Path
	any   bool   // some cd went where the guard cannot tell
	seen  []Path // every directory this shell has been in, for `cd -` and popd
}

func newDirState() *dirState { return &dirState{} }

// clone copies the state for a subshell. The slices are shared, cut to
// their length: a state only ever appends, so the copy's first append
// moves it to an array of its own.
func (d *dirState) clone() *dirState {
	c := *d
	c.cands = c.cands[:len(c.cands):len(c.cands)]
	c.seen = c.seen[:len(c.seen):len(c.seen)]
	return &c
}

// enter adds the directories a cd may lead to.
func (d *dirState) enter(targets []Path) {
	if len(d.cands) == 0 {
		d.cands, d.seen = []Path{{}}, []Path{{}}
	}
	for _, t := range targets {
		for _, c := range d.cands {
			d.addCand(t.join(c))
			if t.IsAbs() {
				break
			}
		}
	}
}

func (d *dirState) addCand(p Path) {
	for _, c := range d.cands {
		if c.equal(p) {
			return
		}
	}
	if len(d.cands) >= maxDirs {
		d.any = true
		return
	}
	d.cands = append(d.cands, p)
	d.seen = append(d.seen, p)
}

// back is `cd -` or popd: any directory the shell has been in.
func (d *dirState) back() {
	if len(d.cands) == 0 {
		return // it has been nowhere else
	}
	for _, p := range append([]Path(nil), d.seen...) {
		d.addCand(p)
	}
}

// changeDir follows a cd, pushd or popd run in sc.
func (a *engine) changeDir(sc *scope, base string, argv []arg) {
	d := sc.dirs
	if d == nil || d.any {
		return
	}
	_, ops := scanOptions(argv[1:], optSpec{})
	switch {
	case base == "popd" || len(ops) > 0 && ops[0].lit && (ops[0].text == "-" || strings.HasPrefix(ops[0].text, "+")):
		d.back()
	case len(ops) == 0:
		if base == "pushd" {
			d.back() // swaps the top two directories
			return
		}
		var home Path
		home.add(PathHome, "")
		d.enter([]Path{home})
	case a.facts.assigned["CDPATH"] || a.facts.anyVar:
		d.any = true // a relative cd may go anywhere CDPATH lists
	default:
		targets := a.pathsOf(sc, ops[0])
		for _, t := range targets {
			for _, part := range t.Parts {
				if part.Kind == PathUnknown || part.Kind == PathGlob {
					d.any = true
					return
				}
			}
		}
		d.enter(targets)
	}
}

// changesDir reports whether the statements under n change directory
// (cd, pushd, popd), where repeating them (in a loop, or a function
// called twice) takes the shell further each time.
func changesDir(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found {
			return false
		}
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			if text, ok := literalText(call.Args[0]); ok && oneOf(text, "cd", "pushd", "popd") {
				found = true
			}
		}
		return !found
	})
	return found
}

// where returns the directories a command of sc runs in. The slice is
// shared: a directory state only ever appends, and a clone copies.
func where(sc *scope) ([]Path, bool) {
	if sc.dirs == nil {
		return nil, false
	}
	return sc.dirs.cands[:len(sc.dirs.cands):len(sc.dirs.cands)], sc.dirs.any
}
