package skills

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/problem"
)

// bundledFiles is the catalogue compiled into the binary, one flat
// `<name>.md` per skill.
//
//go:embed bundled/*.md
var bundledFiles embed.FS

// skillFile is the file name of a skill in the Agent Skills folder layout.
const skillFile = "SKILL.md"

// Load reads every source in precedence order — bundled, registry, user,
// project — and returns the resulting catalogue. A skill overrides one of the
// same name from an earlier source. Files that cannot be used are returned
// as Problems and skipped; Load itself never fails, because a broken skill
// file must not stop the agent from starting.
func Load(src Sources) (*Catalogue, []problem.Problem) {
	l := &loader{byName: make(map[string]Skill)}
	if !src.NoBundled {
		sub, err := fs.Sub(bundledFiles, "bundled")
		if err != nil { // only if the embed pattern changed
			l.report("bundled", fmt.Sprintf("cannot open the bundled skills: %v", err))
		} else {
			l.scan(sub, OriginBundled, func(rel string) string { return path.Join("bundled", rel) })
		}
	}
	l.scanDir(src.RegistryDir, OriginRegistry)
	l.scanDir(src.ClaudeUserDir, OriginClaudeUser)
	l.scanDir(src.UserDir, OriginUser)
	l.scanDir(src.ClaudeProjectDir, OriginClaudeProject)
	l.scanDir(src.ProjectDir, OriginProject)
	return newCatalogue(l.byName), l.problems
}

// loader accumulates skills by name and the problems met on the way.
type loader struct {
	byName   map[string]Skill
	problems []problem.Problem
}

func (l *loader) report(file, err string) {
	l.problems = append(l.problems, problem.Problem{Kind: "skill", Where: file, Err: err})
}

// scanDir scans one directory on disk. A directory that does not exist is
// simply empty: none of the three has to be created for shiro to run.
func (l *loader) scanDir(dir string, origin Origin) {
	if dir == "" {
		return
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		l.report(dir, fmt.Sprintf("cannot read the %s skills directory: %v; check its permissions", origin, err))
		return
	case !st.IsDir():
		l.report(dir, fmt.Sprintf("the %s skills location is a file, not a directory; move the file away and put skills inside a directory", origin))
		return
	}
	l.scan(os.DirFS(dir), origin, func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) })
}

// scan reads the top level of fsys: `<name>.md` files and `<name>/SKILL.md`
// folders. It does not descend further, so a skill's own resources (scripts,
// references) are never mistaken for skills. display turns a path inside
// fsys into the path shown in a Problem or Skill.Path.
func (l *loader) scan(fsys fs.FS, origin Origin, display func(rel string) string) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		l.report(display("."), fmt.Sprintf("cannot list the %s skills directory: %v; check its permissions", origin, err))
		return
	}
	// seen maps a name to the file that already claimed it in this
	// directory. Entries come sorted, so `x/` is met before `x.md` and the
	// folder layout wins a tie.
	seen := make(map[string]string)
	for _, e := range entries {
		entry := e.Name()
		if strings.HasPrefix(entry, ".") {
			continue // .git, editor swap files, .DS_Store
		}
		st, err := fs.Stat(fsys, entry) // follows symlinks
		if err != nil {
			l.report(display(entry), fmt.Sprintf("cannot read: %v; fix or remove it", err))
			continue
		}
		var stem, rel string
		switch {
		case st.IsDir():
			rel = l.folderSkill(fsys, entry, display)
			if rel == "" {
				continue
			}
			stem = entry
		case strings.HasSuffix(entry, ".md"):
			stem, rel = strings.TrimSuffix(entry, ".md"), entry
		case strings.EqualFold(path.Ext(entry), ".md"):
			l.report(display(entry), "skill files must end in lowercase .md; rename it")
			continue
		default:
			continue // not a skill file
		}
		if first, dup := seen[stem]; dup {
			l.report(display(rel), fmt.Sprintf("skill %q is already defined by %s in the same directory; remove one of the two", stem, first))
			continue
		}
		seen[stem] = display(rel)
		l.loadFile(fsys, rel, stem, origin, display(rel))
	}
}

// folderSkill returns the path of dir's SKILL.md, or "" when dir holds none.
// A SKILL.md spelt in another case is reported, since it was surely meant.
func (l *loader) folderSkill(fsys fs.FS, dir string, display func(string) string) string {
	rel := path.Join(dir, skillFile)
	if _, err := fs.Stat(fsys, rel); err == nil {
		return rel
	}
	inner, err := fs.ReadDir(fsys, dir)
	if err != nil {
		l.report(display(dir), fmt.Sprintf("cannot list the skill folder: %v; check its permissions", err))
		return ""
	}
	for _, e := range inner {
		if strings.EqualFold(e.Name(), skillFile) {
			l.report(display(path.Join(dir, e.Name())), "rename it to SKILL.md (upper case) so the skill folder is recognised")
		}
	}
	return ""
}

// loadFile parses one skill file and adds it, overriding an earlier skill of
// the same name.
func (l *loader) loadFile(fsys fs.FS, rel, stem string, origin Origin, shown string) {
	data, err := readLimited(fsys, rel)
	if err != nil {
		l.report(shown, fmt.Sprintf("cannot read: %v", err))
		return
	}
	doc, err := parseDocument(data)
	if err != nil {
		l.report(shown, err.Error())
		return
	}
	if doc.name != stem {
		l.report(shown, fmt.Sprintf("name %q does not match the file or folder name %q; make them the same", doc.name, stem))
		return
	}
	if doc.cut() {
		l.report(shown, fmt.Sprintf("loaded, but the body is %d characters and only the first %d are kept; shorten it or split it into several skills", doc.bodyRunes, BodyCap))
	}
	s := Skill{
		Name:        doc.name,
		Description: doc.description,
		Body:        doc.body,
		Origin:      origin,
		Path:        shown,
		Extra:       doc.extra,
	}
	if origin != OriginBundled && path.Base(rel) == skillFile {
		s.Dir = filepath.Dir(shown)
		if abs, err := filepath.Abs(s.Dir); err == nil {
			s.Dir = abs
		}
	}
	if prev, ok := l.byName[s.Name]; ok {
		s.Overrode, s.OverrodePath = prev.Origin, prev.Path
	}
	l.byName[s.Name] = s
}

// readLimited reads at most one byte more than MaxFileBytes, so an oversized
// file is detected without reading all of it.
func readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}
