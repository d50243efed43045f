package docstest

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

var (
	statePath = regexp.MustCompile(`(?:^|[^\w.-])\.shiro-neko((?:/(?:<[^>]*>|[^\s` + "`" + `"')<])*)?)`)
	stateRoot = regexp.MustCompile(`^(?:\$SHIRO_HOME/|\$HOME/|~/)?\.shiro-neko/$`)
)

// statePaths checks every path under .shiro-neko: it must be one that
// config.Paths produces (or inside one of its directories).
func (c *checker) statePaths(d doc) {
	for _, p := range d.code() {
		for _, m := range statePath.FindAllStringSubmatch(p.text, -1) {
			c.checkStatePath(d, p.line, m[1])
		}
	}
	// A listing under a `.shiro-neko/` line names paths relative to it.
	for _, b := range d.blocks {
		for i, p := range b {
			if !stateRoot.MatchString(strings.TrimSpace(p.text)) {
				continue
			}
			for _, entry := range b[i+1:] {
				if entry.text == "" || !unicode.IsSpace(rune(entry.text[0])) {
					break
				}
				if words := shellWords(entry.text); len(words) > 0 {
					c.checkStatePath(d, entry.line, "/"+words[0])
				}
			}
		}
	}
}

func (c *checker) checkStatePath(d doc, line int, rel string) {
	rel = strings.Trim(trimProse(rel), "/")
	if rel == "" {
		return
	}
	for _, r := range expandBraces(rel) {
		if !c.isStatePath(r) {
			c.report(d, line, "`.shiro-neko/%s` is not a path shiro keeps; config.Paths makes %s", r, strings.Join(c.f.state, ", "))
		}
	}
}

// isStatePath matches a doc's path against config.Paths: equal, a
// directory holding one of its paths, or a path inside one of its
// directories; a product's <key> stands for any <placeholder> or a key.
func (c *checker) isStatePath(rel string) bool {
	segs := strings.Split(strings.TrimSuffix(rel, "/"), "/")
	for _, product := range c.f.state {
		ps := strings.Split(product, "/")
		n := min(len(segs), len(ps))
		same := true
		for i := range n {
			if !segmentMatches(segs[i], ps[i]) {
				same = false
				break
			}
		}
		if !same {
			last := len(segs) - 1
			// A lock beside a file the paths name (hooks.json.lock).
			if len(segs) == len(ps) && allMatch(segs[:last], ps[:last]) {
				if _, ok := derivedState()[strings.TrimPrefix(segs[last], ps[last])]; ok && strings.HasPrefix(segs[last], ps[last]) {
					return true
				}
			}
			continue
		}
		if len(segs) <= len(ps) || !strings.Contains(ps[len(ps)-1], ".") {
			return true // the path itself, a folder above it, or inside its folder
		}
	}
	return false
}

func allMatch(doc, product []string) bool {
	for i := range doc {
		if !segmentMatches(doc[i], product[i]) {
			return false
		}
	}
	return true
}

var placeholder = regexp.MustCompile(`<[^>]+>`)

func segmentMatches(doc, product string) bool {
	if doc == product {
		return true
	}
	if !strings.Contains(product, "<key>") {
		return false
	}
	pattern := "^" + strings.ReplaceAll(regexp.QuoteMeta(product), regexp.QuoteMeta("<key>"), `(?:<[^>]+>|[0-9a-f]{16})`) + "$"
	return regexp.MustCompile(pattern).MatchString(doc)
}

var projectPath = regexp.MustCompile(`(?:^|[^\w.-])\.shiro/([\w.-]+|<[^>]+>)`)

// projectPaths checks every `.shiro/<name>` of a project: name must be one
// the code reads (projectEntries, each proven by TestProjectPathsAreRead).
func (c *checker) projectPaths(d doc) {
	for _, p := range d.code() {
		for _, m := range projectPath.FindAllStringSubmatch(p.text, -1) {
			if _, ok := projectEntries()[m[1]]; !ok {
				c.report(d, p.line, "shiro reads nothing at `.shiro/%s` in a project; it reads %s", m[1], sortedKeys(projectEntries()))
			}
		}
	}
}

var (
	repoPath = regexp.MustCompile(`(?:^|[\s(` + "`" + `'"=:])(?:\./)?((?:internal|cmd)/(?:[\w./*<>-]|\{[^}]*\})*)`)
	goFile   = regexp.MustCompile(`(?:^|[\s(` + "`" + `'"])([\w.-]+(?:/[\w.-]+)+\.go)\b`)
)

// repoPaths checks every path of the repository a doc names
// (internal/…, cmd/…, or a .go file): it must exist. A Go name after the
// package (`internal/secrets.NamePatterns`) is allowed; <placeholders> and
// globs match anything.
func (c *checker) repoPaths(d doc) {
	for _, p := range d.code() {
		for _, m := range repoPath.FindAllStringSubmatch(p.text, -1) {
			c.checkRepoPath(d, p.line, m[1], false)
		}
		for _, m := range goFile.FindAllStringSubmatch(p.text, -1) {
			// Only a file under one of the repository's own folders: a
			// patch example's src/app.go names no file of shiro's.
			first, _, _ := strings.Cut(m[1], "/")
			if first == "internal" || first == "cmd" || !(c.repoHas(first) || c.repoHas("internal/"+first)) {
				continue
			}
			c.checkRepoPath(d, p.line, m[1], true)
		}
	}
}

func (c *checker) checkRepoPath(d doc, line int, path string, underInternal bool) {
	path = strings.TrimSuffix(trimProse(path), "/...")
	for _, p := range expandBraces(path) {
		p = placeholder.ReplaceAllString(p, "*")
		if c.repoHas(p) || (underInternal && c.repoHas("internal/"+p)) {
			continue
		}
		c.report(d, line, "`%s` is not in the repository", p)
	}
}

func (c *checker) repoHas(p string) bool {
	if matches, _ := filepath.Glob(filepath.Join(c.f.repo, filepath.FromSlash(p))); len(matches) > 0 {
		return true
	}
	// internal/secrets.NamePatterns: a package and one of its names.
	dir, base := filepath.Split(p)
	if pkg, name, ok := strings.Cut(base, "."); ok && name != "" && unicode.IsUpper(rune(name[0])) {
		matches, _ := filepath.Glob(filepath.Join(c.f.repo, filepath.FromSlash(dir+pkg)))
		return len(matches) > 0
	}
	return false
}
