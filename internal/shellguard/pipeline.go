package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// input is what feeds a command's standard input, as far as the guard can
// tell: a here-document, a here-string, a file, or the stages before it in
// a pipeline.
type input struct {
	text       string      // the data, when known
	known      bool        // text is what arrives (exactly, or as an approximation)
	lit        bool        // text is exact; otherwise expansions are left as written
	node       syntax.Node // where text came from, to look for downloads in it
	downloader bool        // a download feeds it
	sql        bool        // destructive SQL feeds it
	file       bool        // a file on disk feeds it (the guard does not read files)
	line       string      // the whole pipeline as written, for refusals
}

// pipeline returns the pipeline the input came through, as written, for a
// refusal that must show both ends (`curl … | sh`), or at otherwise.
func (in *input) pipeline(at string) string {
	if in.line != "" {
		return in.line
	}
	return at
}

// ownInput returns what a statement's own input redirection feeds it
// (the last one wins, as in the shell), or nil when it has none.
func (a *engine) ownInput(sc *scope, st *syntax.Stmt) *input {
	var in *input
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			in = a.textInput(sc, sc.heredocBody(r), r.Hdoc)
		case syntax.WordHdoc:
			w := sc.evalWord(r.Word)
			w.text += "\n"
			in = a.textInput(sc, w, r.Word)
		case syntax.RdrIn, syntax.RdrInOut:
			if sc.evalWord(r.Word).lit {
				in = &input{file: true}
			} else { // < <(curl …), < "$f": decided at run time
				in = &input{downloader: a.downloadsIn(sc, r.Word)}
			}
		case syntax.DplIn:
			// `<&3`: another descriptor, opened elsewhere on the line.
			if t := sc.evalWord(r.Word); t.text != "0" && t.text != "-" {
				in = &input{downloader: a.lineDownloads()}
			}
		}
	}
	return in
}

// inputOf returns what feeds a statement: its own redirection, else what
// its pipeline stage reads, else what the statement around it reads.
func (a *engine) inputOf(sc *scope, st *syntax.Stmt, inherited *input) *input {
	if in := a.ownInput(sc, st); in != nil {
		return in
	}
	if in := a.feeds[st]; in != nil {
		return in
	}
	return inherited
}

// lineDownloads reports whether the command line runs a download
// anywhere, for input that arrives through a descriptor the guard does
// not follow.
func (a *engine) lineDownloads() bool {
	if a.out.file == nil {
		return false
	}
	if a.downloadsSeen == 0 {
		a.downloadsSeen = 1
		if a.downloadsIn(&scope{src: a.src}, a.out.file) {
			a.downloadsSeen = 2
		}
	}
	return a.downloadsSeen == 2
}

func (a *engine) textInput(sc *scope, w arg, node *syntax.Word) *input {
	in := &input{text: w.text, known: true, lit: w.lit}
	if node != nil {
		in.node = node
	}
	if !w.lit {
		in.downloader = a.downloadsIn(sc, in.node)
	}
	return in
}

// pipeline works out what each stage of a pipeline reads: whether a
// download or destructive SQL runs upstream, and the exact text when the
// stage before only prints literal words (`echo "rm -rf x" | sh`).
func (a *engine) pipeline(sc *scope, b *syntax.BinaryCmd, inherited *input) {
	if _, done := a.flat[b]; done {
		return
	}
	stages := a.flatten(b, nil)
	if a.stages == nil {
		a.stages = make(map[*syntax.Stmt]bool)
	}
	for _, st := range stages {
		a.stages[st] = true // each stage runs in a subshell of its own
	}
	line := sc.slice(b.Pos(), b.End())
	var down, sql bool
	first := a.inputOf(sc, stages[0], inherited)
	if first != nil {
		down, sql = first.downloader, first.sql
	}
	for i, st := range stages {
		if a.stopped {
			return
		}
		if i > 0 {
			feed := &input{downloader: down, sql: sql, line: line}
			up := first
			if i > 1 {
				up = a.inputOf(sc, stages[i-1], nil)
			}
			a.output(sc, stages[i-1], feed, up)
			a.setFeed(st, feed)
		}
		if i < len(stages)-1 {
			d, s := a.stageFacts(sc, st)
			down, sql = down || d, sql || s
		}
	}
}

// flatten lists the stages of a pipeline; the shell nests `a | b | c` as
// pipes within pipes, and those inner pipes are then handled here only.
func (a *engine) flatten(b *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	for _, s := range [2]*syntax.Stmt{b.X, b.Y} {
		inner, ok := s.Cmd.(*syntax.BinaryCmd)
		if ok && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Negated && !s.Background {
			if a.flat == nil {
				a.flat = make(map[*syntax.BinaryCmd]struct{})
			}
			a.flat[inner] = struct{}{}
			out = a.flatten(inner, out)
			continue
		}
		out = append(out, s)
	}
	return out
}

// setFeed records what a stage reads, for the stage and for the commands
// inside it that share its input (`curl … | { cat; sh; }`).
func (a *engine) setFeed(st *syntax.Stmt, in *input) {
	if st == nil || !a.charge(1) {
		return
	}
	if a.feeds == nil {
		a.feeds = make(map[*syntax.Stmt]*input)
	}
	a.feeds[st] = in
	switch c := st.Cmd.(type) {
	case *syntax.Block:
		for _, s := range c.Stmts {
			a.setFeed(s, in)
		}
	case *syntax.Subshell:
		for _, s := range c.Stmts {
			a.setFeed(s, in)
		}
	case *syntax.BinaryCmd:
		a.setFeed(c.X, in)
		if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
			a.setFeed(c.Y, in)
		}
	case *syntax.TimeClause:
		a.setFeed(c.Stmt, in)
	}
}

// output fills in what a stage writes when the guard can know it: nothing
// (`:`), echo's or printf's words, or what cat and tee pass through.
func (a *engine) output(sc *scope, st *syntax.Stmt, feed, up *input) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	argv, ok := a.words(sc, call.Args)
	if !ok || !argv[0].lit {
		return
	}
	switch prog := programName(argv[0].text); prog {
	case ":", "true", "false":
		feed.known, feed.lit = true, true
		return
	case "echo", "printf":
		text, lit, ok := printed(prog, argv[1:])
		if !ok {
			// A format the guard does not run: its words stand in for
			// what it prints, as an approximation.
			text, _ = joinArgs(argv[1:])
			lit = false
		}
		feed.text, feed.lit = text, lit
		feed.known, feed.node = true, call
		return
	case "cat", "tee":
		_, ops := scanOptions(argv[1:], optSpec{})
		if programName(argv[0].text) == "cat" && len(ops) > 0 && !(len(ops) == 1 && ops[0].text == "-") {
			return // cat of files: unknown content
		}
		if up != nil && up.known {
			feed.text, feed.known, feed.lit, feed.node = up.text, true, up.lit, up.node
		}
	}
}

// isEchoFlags reports echo's own options (-n, -e, -E and clusters).
func isEchoFlags(s string) bool {
	return len(s) > 1 && s[0] == '-' && strings.Trim(s[1:], "neE") == ""
}

// stageFacts reports whether a stage runs a download (through any
// wrapper, in any substitution) or holds destructive SQL text.
func (a *engine) stageFacts(sc *scope, st *syntax.Stmt) (download, sql bool) {
	syntax.Walk(st, func(n syntax.Node) bool {
		if (download && sql) || !a.charge(1) {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				break
			}
			argv, ok := a.words(sc, n.Args)
			if !ok {
				break
			}
			download = download || a.downloads(sc, argv, 0)
			for _, w := range argv[1:] {
				sql = sql || sqlFor("", w.text)
			}
		case *syntax.Redirect:
			if n.Hdoc != nil {
				sql = sql || sqlFor("", sc.heredocBody(n).text)
			}
		}
		return true
	})
	return download, sql
}

// downloadsIn reports whether any command under the nodes runs a download.
func (a *engine) downloadsIn(sc *scope, nodes ...syntax.Node) bool {
	found := false
	for _, n := range nodes {
		if n == nil || found {
			continue
		}
		syntax.Walk(n, func(n syntax.Node) bool {
			if found || !a.charge(1) {
				return false
			}
			if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				if argv, ok := a.words(sc, call.Args); ok && a.downloads(sc, argv, 0) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// downloads reports whether argv is a download, directly or through
// wrappers (`sudo env curl …`).
func (a *engine) downloads(sc *scope, argv []arg, hops int) bool {
	if len(argv) == 0 || hops > maxHops || !argv[0].lit {
		return false
	}
	base := programName(argv[0].text)
	if isDownloader(base) {
		return true
	}
	for _, e := range a.follow(sc, base, argv).execs {
		if a.downloads(sc, e, hops+1) {
			return true
		}
	}
	return false
}

// splitWords splits env -S's string into words the way a shell would
// (quotes honoured); a string decided at run time stays one unknown word.
func (a *engine) splitWords(sc *scope, v arg) []arg {
	if !v.lit || !a.charge(len(v.text)) {
		return []arg{{text: v.text, src: v.src}}
	}
	inner := &scope{src: v.text, depth: sc.depth}
	var out []arg
	var err error
	for w, werr := range a.parser.WordsSeq(strings.NewReader(v.text)) {
		if werr != nil {
			err = werr
			break
		}
		out = append(out, inner.evalWord(w))
	}
	if err != nil {
		out = out[:0]
		for _, f := range strings.Fields(v.text) {
			out = append(out, arg{text: f, src: f, lit: !strings.ContainsAny(f, "$`")})
		}
	}
	return out
}
