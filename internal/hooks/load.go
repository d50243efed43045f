package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/problem"
)

// Set is the hooks discovered at start-up, one per name, in name order.
// It includes folders that are not usable hooks: those still block the
// calls they would cover (all calls, when their manifest cannot be read),
// because a guard with a typo must not quietly stop guarding.
type Set struct {
	entries []entry
	// unlisted are the problems that belong to no hook folder: files that
	// are not hook folders, folders shadowed by a hook of the same name,
	// and hooks folders that cannot be listed.
	unlisted []problem.Problem
}

// entry is one hook folder as loaded.
type entry struct {
	// hook is complete for a valid folder. For an invalid one, Name, Dir
	// and Origin are set, and Kind and Tools too when scoped.
	hook     Hook
	manifest []byte // manifest.json as hashed; nil when absent
	err      *locatedError
	// scoped: the folder is invalid, but its manifest was read, so only
	// the calls it names are blocked.
	scoped bool
	// cmd is set for a hook of Claude Code's settings (command.go); hook.Dir
	// is then its file and place there, and manifest its description.
	cmd *command
}

// inspect re-reads the hook as it is on disk now.
func (e entry) inspect() entry {
	if e.cmd != nil {
		return e.cmd.inspect(e)
	}
	return inspectAt(e.hook.Dir, e.hook.Name, e.hook.Origin)
}

// covers reports whether the folder, as loaded, applies to an event and
// tool. An invalid folder whose manifest is unreadable covers every
// pre_tool call.
func (e entry) covers(kind Kind, tool string) bool {
	switch {
	case e.err != nil && !e.scoped && e.cmd != nil:
		return e.hook.Kind == kind
	case e.err != nil && !e.scoped:
		return kind == KindPreTool
	case e.cmd != nil:
		return e.hook.Kind == kind && (!kind.toolScoped() || e.cmd.covers(tool))
	}
	return e.hook.Kind == kind && (!kind.toolScoped() || e.hook.Covers(tool))
}

// Hooks returns the valid hooks in name order.
func (s *Set) Hooks() []Hook {
	var out []Hook
	for _, e := range s.entries {
		if e.err == nil {
			out = append(out, e.hook)
		}
	}
	return out
}

// Unlisted returns what Load found in the hooks folders that is not a
// hook, so Status cannot show it: files that are not hook folders, folders
// shadowed by a hook of the same name, and hooks folders that cannot be
// listed. A broken hook folder is not among them; it is a hook, and Status
// reports it as invalid.
func (s *Set) Unlisted() []problem.Problem { return slices.Clone(s.unlisted) }

// Load discovers hooks in the project's hooks folder (.shiro/hooks) and the
// user's ($SHIRO_HOME/.shiro-neko/hooks); either may be empty or missing.
// Project hooks come first and the first folder with a name wins. Every
// folder that is not a usable hook, and every hook shadowed by another of
// the same name, is reported as a Problem naming the file and the fix.
func Load(projectHooksDir, userHooksDir string) (*Set, []problem.Problem) {
	set := &Set{}
	var problems []problem.Problem
	winner := map[string]string{} // hook name → folder that took it
	for _, src := range []struct {
		dir    string
		origin Origin
	}{{projectHooksDir, OriginProject}, {userHooksDir, OriginUser}} {
		if src.dir == "" {
			continue
		}
		folders, notFolders, err := listHookFolders(src.dir)
		if err != nil {
			set.unlisted = append(set.unlisted, problemOf(err))
			problems = append(problems, problemOf(err))
			continue
		}
		flat, notHooks := flatHooks(notFolders)
		folders = append(folders, flat...)
		slices.Sort(folders)
		for _, path := range notHooks {
			p := problem.Problem{Kind: "hook", Where: path, Err: "not a hook folder: each hook is a folder <name>/ holding manifest.json and an executable named run, or an executable <name> with <name>.json beside it; move this into one, or remove it"}
			set.unlisted = append(set.unlisted, p)
			problems = append(problems, p)
		}
		for _, path := range folders {
			name := filepath.Base(path)
			if first, taken := winner[name]; taken {
				p := problem.Problem{Kind: "hook", Where: path, Err: fmt.Sprintf("shadowed by the hook of the same name in %s, so it does not run; rename one of them to use both", first)}
				set.unlisted = append(set.unlisted, p)
				problems = append(problems, p)
				continue
			}
			winner[name] = path
			e := inspect(path, name, src.origin)
			if e.err != nil {
				problems = append(problems, problemOf(e.err))
			}
			set.entries = append(set.entries, e)
		}
	}
	slices.SortFunc(set.entries, func(a, b entry) int { return strings.Compare(a.hook.Name, b.hook.Name) })
	return set, problems
}

// listHookFolders lists the entries of a hooks folder, skipping hidden
// ones (.DS_Store and the like), split into folders (or symlinks to
// folders) and everything else.
func listHookFolders(dir string) (folders, others []string, err error) {
	items, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		if info, statErr := os.Stat(dir); statErr == nil && !info.IsDir() {
			return nil, nil, &locatedError{Path: dir, Msg: "is not a folder; hooks live in folders inside it, so move this file away"}
		}
		return nil, nil, &locatedError{Path: dir, Msg: fmt.Sprintf("cannot be listed (%v)", unwrapPathError(err))}
	}
	for _, item := range items {
		if strings.HasPrefix(item.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, item.Name())
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			folders = append(folders, path)
		} else {
			others = append(others, path)
		}
	}
	return folders, others, nil
}

// inspect resolves path to its canonical folder (the trust key) and
// checks the hook there.
func inspect(path, name string, origin Origin) entry {
	dir := path
	if abs, err := filepath.Abs(path); err == nil {
		dir = abs
		if isFlat(abs) {
			// A flat hook's files are those beside it in its hooks
			// folder: only the folder is resolved.
			if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
				dir = filepath.Join(parent, name)
			}
		} else if canonical, err := filepath.EvalSymlinks(abs); err == nil {
			dir = canonical
		}
	}
	return inspectAt(dir, name, origin)
}

// inspectAt hashes the folder dir, already canonical, and checks that it
// is a usable hook. The manifest is parsed from the very bytes the digest
// covers, so the two always describe the same hook.
func inspectAt(dir, name string, origin Origin) entry {
	e := entry{hook: Hook{Name: name, Dir: dir, Origin: origin}}
	b, err := scanBundle(dir, dir, nil)
	if err != nil {
		e.err = asLocated(dir, err)
		return e
	}
	e.hook.Digest, e.manifest = b.digest, b.manifest
	manifestPath, runPath := hookPaths(dir)
	if b.manifest == nil {
		e.err = &locatedError{Path: manifestPath, Msg: `missing; create it, for example {"name":"` + name + `","hook":"pre_tool","tools":["bash"]}`}
		return e
	}
	m, err := ParseManifest(b.manifest)
	if err != nil {
		e.err = &locatedError{Path: manifestPath, Msg: err.Error()}
		return e
	}
	e.hook.Kind, e.hook.Tools, e.hook.Timeout = m.Hook, m.Tools, m.TimeoutDuration()
	e.scoped = true
	switch {
	case m.Name != name:
		e.err = &locatedError{Path: manifestPath, Msg: fmt.Sprintf("field \"name\": is %q but the folder is named %q; they must match", m.Name, name)}
	case b.run == nil:
		e.err = &locatedError{Path: runPath, Msg: "missing; add the executable the hook runs (it is started directly, so a script needs a #! line)"}
	case b.run.perm&0o100 == 0:
		e.err = &locatedError{Path: runPath, Msg: "is not executable; run: chmod +x " + runPath}
	}
	return e
}

func asLocated(dir string, err error) *locatedError {
	var le *locatedError
	if errors.As(err, &le) {
		return le
	}
	return &locatedError{Path: dir, Msg: err.Error()}
}

func problemOf(err error) problem.Problem {
	var le *locatedError
	if errors.As(err, &le) {
		return problem.Problem{Kind: "hook", Where: le.Path, Err: le.Msg}
	}
	return problem.Problem{Kind: "hook", Err: err.Error()}
}
