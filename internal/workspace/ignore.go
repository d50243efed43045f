package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The ignore files a walk honours. Each applies to the directory it sits in
// and everything below it.
const (
	gitignoreName   = ".gitignore"
	shiroignoreName = ".shiroignore"
)

// alwaysSkipped names entries no walk reports or enters, whatever the ignore
// files say and even when ignored entries are asked for: the git database
// and installed JavaScript packages are never what the model is looking for
// and are often huge.
func alwaysSkipped(name string) bool {
	return name == ".git" || name == "node_modules"
}

// IgnoreRules are the patterns in force in one directory: its ancestors'
// and its own. Git rules and shiro rules are kept apart and a path is hidden
// when either hides it, so a `!` line re-includes only what an earlier line
// of the same kind excluded. This keeps the meaning of each file the same
// whichever search backend applies it (ripgrep knows only the git kind).
//
// Matching is go-git's gitignore implementation; paths are given to it as
// components relative to the workspace root, and each pattern carries the
// directory of its file as its domain, which is what scopes nested files.
type IgnoreRules struct {
	git, shiro        []gitignore.Pattern
	gitMatch, shMatch gitignore.Matcher
}

// rootRules loads the rules of the workspace root: .git/info/exclude (the
// lowest priority), then the root's .gitignore and .shiroignore.
func rootRules(root string) *IgnoreRules {
	r := &IgnoreRules{}
	r.git = readPatterns(filepath.Join(root, ".git", "info", "exclude"), nil, nil)
	return r.WithDir(root, nil)
}

// WithDir returns the rules for directory abs (components comps): r plus the
// directory's own ignore files. It returns r itself when the directory has
// none, so a deep tree without nested ignore files shares one value.
func (r *IgnoreRules) WithDir(abs string, comps []string) *IgnoreRules {
	git := readPatterns(filepath.Join(abs, gitignoreName), comps, r.git)
	shiro := readPatterns(filepath.Join(abs, shiroignoreName), comps, r.shiro)
	if len(git) == len(r.git) && len(shiro) == len(r.shiro) && r.gitMatch != nil {
		return r
	}
	return &IgnoreRules{
		git:      git,
		shiro:    shiro,
		gitMatch: gitignore.NewMatcher(git),
		shMatch:  gitignore.NewMatcher(shiro),
	}
}

// ignored reports whether the entry at path (components from the workspace
// root) is hidden by either kind of rule.
func (r *IgnoreRules) ignored(path []string, isDir bool) bool {
	if len(r.git) > 0 && r.gitMatch.Match(path, isDir) {
		return true
	}
	return len(r.shiro) > 0 && r.shMatch.Match(path, isDir)
}

// readPatterns appends the patterns of one ignore file to base. A missing or
// unreadable file adds nothing: an ignore file we cannot read should not
// stop a search. The result never shares base's backing array, because
// sibling directories extend the same parent slice.
func readPatterns(file string, domain []string, base []gitignore.Pattern) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return base
	}
	defer func() { _ = f.Close() }()
	out := base[:len(base):len(base)]
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// The same line rules as git: blank lines and # comments are skipped
		// (a pattern starting with # is written \#). ScanLines already
		// dropped a trailing \r, so CRLF ignore files work.
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

// Visibility answers "would Walk report this file?" for paths found some
// other way (ripgrep's output), loading each directory's ignore files once.
type Visibility struct {
	root string
	dirs map[string]dirVisibility
}

type dirVisibility struct {
	hidden bool
	rules  *IgnoreRules
}

// NewVisibility starts with the root's rules; deeper directories are read
// when first asked about.
func NewVisibility(root string) *Visibility {
	return &Visibility{
		root: root,
		dirs: map[string]dirVisibility{".": {rules: rootRules(root)}},
	}
}

// File reports whether the regular file at rel (slash-separated, relative
// to the root) is visible: no component is always skipped and neither the
// file nor any directory above it is hidden by the ignore rules.
func (v *Visibility) File(rel string) bool {
	dir, name := ".", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	d := v.dir(dir)
	if d.hidden || alwaysSkipped(name) {
		return false
	}
	return !d.rules.ignored(strings.Split(rel, "/"), false)
}

func (v *Visibility) dir(rel string) dirVisibility {
	if d, ok := v.dirs[rel]; ok {
		return d
	}
	parent, name := ".", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent, name = rel[:i], rel[i+1:]
	}
	p := v.dir(parent)
	var d dirVisibility
	comps := strings.Split(rel, "/")
	switch {
	case p.hidden || alwaysSkipped(name) || p.rules.ignored(comps, true):
		d.hidden = true
	default:
		d.rules = p.rules.WithDir(filepath.Join(v.root, filepath.FromSlash(rel)), comps)
	}
	v.dirs[rel] = d
	return d
}
