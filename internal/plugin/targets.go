package plugin

import (
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// The path plugins (secrets, protect) judge every file a call would write,
// and secrets every file a shell command would read. The files come from
// the tool's Writes metadata (so a new write tool is covered without being
// named) and from the shell analysis's accesses (redirections, tee, cp,
// mv…; see shellguard.Analysis.Accesses), which follow the line's cd,
// pushd and popd, the variables it assigns and the links it makes. Here
// they are resolved against the file system: the working directory, the
// home directory, environment variables, globs and symlinks. A path is
// judged as given and, when it leads through a link, as resolved, so
// `notes -> .env` cannot launder a write. A path that cannot be resolved
// (`cd "$x"; echo k >> authorized_keys`) is judged by where it could lead.

// places are where the path plugins resolve paths and what they protect.
type places struct {
	stateDirs []string // shiro's state directory, as given and with its symlinks resolved
	home      string
	tmp       string
	getenv    func(string) string
}

func newPlaces(d BuiltinDeps) places {
	p := places{home: filepath.Clean(d.Home), tmp: filepath.Clean(d.TempDir), getenv: d.Getenv}
	if d.StateDir != "" {
		p.stateDirs = append(p.stateDirs, filepath.Clean(d.StateDir))
		if r, err := filepath.EvalSymlinks(d.StateDir); err == nil && r != p.stateDirs[0] {
			p.stateDirs = append(p.stateDirs, r)
		}
	}
	return p
}

// callPaths are the files of one call, worked out once per Host.Check.
type callPaths struct {
	writes   []target   // exact write targets, as given and resolved
	patterns []pattern  // write targets that cannot be resolved
	reads    []readFile // files the shell reads, as given and resolved
}

// readFile is a file a shell command reads: its name decides what it is.
type readFile struct {
	shown string
	abs   string
}

// pattern is a write target that cannot be resolved before the command
// runs: an absolute path where `*` stands for text decided at run time
// (which may hold ../).
type pattern struct {
	shown string
	glob  string
}

// maxLinkRounds bounds how many links made on the line one path goes
// through.
const maxLinkRounds = 8

// pathsOf works out the files c writes and reads.
func pathsOf(c Call, pl places) *callPaths {
	ws := workspace{cwd: c.Cwd}
	r := resolver{pl: pl, cwd: c.Cwd}
	out := &callPaths{}
	addWrite := func(shown, abs string, kind shellguard.WriteKind) {
		t, ok := ws.target(abs)
		if !ok {
			return
		}
		t.shown, t.kind = shown, kind
		out.writes = append(out.writes, t)
		if resolved, changed := resolveLinks(t.abs); changed {
			if rt, ok := ws.target(resolved); ok {
				rt.shown, rt.kind = shown+" ("+resolved+")", kind
				out.writes = append(out.writes, rt)
			}
		}
	}
	for _, p := range c.Writes {
		if strings.TrimSpace(p) == "" {
			continue
		}
		abs := filepath.FromSlash(p)
		if !filepath.IsAbs(abs) && c.Cwd != "" {
			abs = filepath.Join(c.Cwd, abs)
		}
		addWrite(p, abs, shellguard.Changes)
	}
	for _, a := range c.shell() {
		r.links = r.lineLinks(a.Links())
		for _, acc := range a.Accesses() {
			shown := acc.Path.String()
			r.each(acc.Path, acc.Dirs, acc.AnyDir, acc.Into, func(c cand) {
				if !c.exact {
					if acc.Write {
						out.patterns = append(out.patterns, pattern{shown: shown, glob: c.s})
					}
					return
				}
				r.throughLinks(c.s, func(p cand) {
					switch {
					case !p.exact:
						if acc.Write {
							out.patterns = append(out.patterns, pattern{shown: shown, glob: p.s})
						}
					case acc.Write:
						addWrite(shown, p.s, acc.Kind)
					default:
						out.reads = appendRead(out.reads, shown, p.s)
					}
				})
			})
		}
	}
	return out
}

// appendRead adds a file the shell reads: as named and, when it is a
// symlink, as resolved (only the final name decides what a file is).
func appendRead(reads []readFile, shown, abs string) []readFile {
	reads = append(reads, readFile{shown: shown, abs: abs})
	if info, err := os.Lstat(abs); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		if resolved, changed := resolveLinks(abs); changed {
			reads = append(reads, readFile{shown: shown + " (" + resolved + ")", abs: resolved})
		}
	}
	return reads
}

// cand is one place a path may name: an absolute, clean path when exact,
// otherwise a pattern where `*` stands for unknown text.
type cand struct {
	s     string
	exact bool
}

// lineLink is a link the line makes, resolved: a path through name leads
// to target (or, when target is not exact, somewhere unknown).
type lineLink struct {
	name   string
	target cand
}

type resolver struct {
	pl    places
	cwd   string
	links []lineLink
}

// maxCands caps the places one path may name (dirs times globs).
const maxCands = 64

// candidates resolves a path relative to each directory the command may
// run in; into names the file written inside it when it is a directory.
func (r *resolver) candidates(p shellguard.Path, dirs []shellguard.Path, anyDir bool, into string) []cand {
	var out []cand
	r.each(p, dirs, anyDir, into, func(c cand) { out = append(out, c) })
	return out
}

// each calls fn with every place a path may name (see candidates).
func (r *resolver) each(p shellguard.Path, dirs []shellguard.Path, anyDir bool, into string, fn func(cand)) {
	n := 0
	emit := func(c cand) {
		if n++; n > maxCands {
			if n == maxCands+1 {
				fn(cand{s: "*"})
			}
			return
		}
		fn(c)
		if into != "" && c.exact && isDir(c.s) {
			fn(cand{s: filepath.Join(c.s, into), exact: true})
		}
	}
	if p.IsAbs() {
		r.expand(p, cand{s: "/", exact: true}, emit)
		return
	}
	if len(dirs) == 0 {
		r.expand(p, cand{s: r.cwd, exact: r.cwd != ""}, emit)
	}
	for _, d := range dirs {
		if len(d.Parts) == 0 {
			r.expand(p, cand{s: r.cwd, exact: r.cwd != ""}, emit)
			continue
		}
		r.expand(d, cand{s: r.cwd, exact: r.cwd != ""}, func(base cand) { r.expand(p, base, emit) })
	}
	if anyDir {
		r.expand(p, cand{s: "*"}, emit)
	}
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// expand resolves a path against base: environment variables, the home
// directory, a fresh temporary name, globs (matched on disk; the pattern
// itself when nothing matches, as bash does); text decided at run time
// makes a pattern, and since it may hold ../ what comes before it no
// longer says where the path leads.
func (r *resolver) expand(p shellguard.Path, base cand, fn func(cand)) {
	if len(p.Parts) == 1 && p.Parts[0].Kind == shellguard.PathText && base.exact && !strings.HasPrefix(p.Parts[0].Text, "~") {
		fn(cand{s: filepath.Join(base.s, p.Parts[0].Text), exact: true}) // the usual case: a plain name
		return
	}
	var b strings.Builder
	exact, glob := base.exact, false
	for _, part := range p.Parts {
		switch part.Kind {
		case shellguard.PathText:
			b.WriteString(part.Text)
		case shellguard.PathGlob:
			b.WriteString(part.Text)
			glob = true
		case shellguard.PathEnv:
			b.WriteString(r.pl.getenv(part.Text))
		case shellguard.PathHome:
			b.WriteString(r.homeOf(part.Text, &exact, &b))
		case shellguard.PathTemp:
			b.WriteString(filepath.Join(r.pl.tmp, "shiro-fresh-temporary-name"))
		case shellguard.PathName:
			b.WriteString("#") // a name part: any text without a slash
			exact = false
		case shellguard.PathUnknown:
			b.Reset()
			b.WriteString("*")
			exact = false
		}
	}
	s := b.String()
	switch {
	case !exact && strings.HasPrefix(s, "*"):
		fn(cand{s: s})
		return
	case !filepath.IsAbs(s) && !strings.HasPrefix(s, "~"):
		if !base.exact {
			fn(cand{s: base.s + "/" + s})
			return
		}
		s = filepath.Join(base.s, s)
	case strings.HasPrefix(s, "~"):
		// A literal ~ in a quoted value assigned to a variable
		// (x="~/.ssh") is expanded by bash at the assignment.
		s = filepath.Join(r.pl.home, strings.TrimPrefix(s, "~"))
	}
	if !exact {
		fn(cand{s: s})
		return
	}
	s = filepath.Clean(s)
	fn(cand{s: s, exact: true})
	if !glob {
		return
	}
	if matches, err := filepath.Glob(s); err == nil {
		for i, m := range matches {
			if i == maxCands {
				break
			}
			fn(cand{s: m, exact: true})
		}
	}
}

// homeOf returns ~user's home; an unknown user makes the path a pattern.
func (r *resolver) homeOf(name string, exact *bool, b *strings.Builder) string {
	if name == "" {
		return r.pl.home
	}
	if u, err := user.Lookup(name); err == nil {
		return u.HomeDir
	}
	b.Reset()
	*exact = false
	return "*"
}

// lineLinks resolves the links a line makes.
func (r *resolver) lineLinks(links []shellguard.Link) []lineLink {
	var out []lineLink
	for _, l := range links {
		for _, name := range r.candidates(l.Name, l.Dirs, l.AnyDir, "") {
			if !name.exact {
				continue
			}
			base := cand{s: r.cwd, exact: r.cwd != ""}
			if l.Symbolic && !l.Target.IsAbs() {
				base = cand{s: filepath.Dir(name.s), exact: true} // a symlink's relative target starts beside it
			}
			add := func(t cand) { out = append(out, lineLink{name: name.s, target: t}) }
			if l.Symbolic || l.Target.IsAbs() {
				r.expand(l.Target, base, add)
			} else {
				r.each(l.Target, l.Dirs, l.AnyDir, "", add)
			}
		}
	}
	return out
}

// throughLinks calls fn with abs and every path it leads to through the
// links the line makes (before or after the access: both are judged); a
// link whose target is unknown leads to a pattern.
func (r *resolver) throughLinks(abs string, fn func(cand)) {
	fn(cand{s: abs, exact: true})
	if len(r.links) == 0 {
		return
	}
	seen := []string{abs}
	for i := 0; i < len(seen) && i < maxLinkRounds; i++ {
		for _, l := range r.links {
			rest, ok := strings.CutPrefix(seen[i], l.name)
			if !ok || rest != "" && rest[0] != filepath.Separator {
				continue
			}
			if !l.target.exact {
				fn(cand{s: l.target.s + rest})
				continue
			}
			next := filepath.Join(l.target.s, rest)
			seen = append(seen, next)
			fn(cand{s: next, exact: true})
		}
	}
}

// couldReach reports whether a pattern could name a path that one of
// protected (patterns too) names. In both, `*` is any text and `#` any
// text without a slash.
func couldReach(glob string, protected []string) bool {
	for _, p := range protected {
		if patternsMeet(glob, p) {
			return true
		}
	}
	return false
}

// patternsMeet reports whether two patterns match a string in common:
// `*` is any text, `#` any text without a slash.
func patternsMeet(a, b string) bool {
	memo := make(map[[2]int]bool)
	wild := func(c byte) bool { return c == '*' || c == '#' }
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		if i == len(a) && j == len(b) {
			return true
		}
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		memo[key] = false // a cycle finds nothing new
		aw := i < len(a) && wild(a[i])
		bw := j < len(b) && wild(b[j])
		var v bool
		switch {
		case aw && meet(i+1, j), bw && meet(i, j+1):
			v = true // a wildcard matching nothing
		case i == len(a) || j == len(b):
		case !aw && !bw:
			v = a[i] == b[j] && meet(i+1, j+1)
		case aw && !bw:
			v = (a[i] == '*' || b[j] != '/') && meet(i, j+1)
		case !aw && bw:
			v = (b[j] == '*' || a[i] != '/') && meet(i+1, j)
		}
		memo[key] = v
		return v
	}
	return meet(0, 0)
}

// shellWrites returns the paths a command line visibly writes, as written
// (a part decided at run time shown as …), for the manifest plugins'
// path patterns.
func shellWrites(a *shellguard.Analysis) []string {
	var out []string
	for _, acc := range a.Accesses() {
		if acc.Write {
			out = append(out, acc.Path.String())
		}
	}
	return out
}
