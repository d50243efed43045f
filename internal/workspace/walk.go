package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// WalkOptions tunes Walk.
type WalkOptions struct {
	// IncludeIgnored also reports what .gitignore and .shiroignore hide.
	// .git and node_modules are skipped all the same.
	IncludeIgnored bool
	// MaxDepth bounds how far below root the walk goes: 1 reports root's
	// own entries only. Zero means no bound.
	MaxDepth int
}

// Walk visits the entries below root, a directory given as the model would
// give it (resolved through the jail). It is the one walker behind grep,
// glob, list_dir and anything else that lists the workspace, so they all
// agree on what is visible:
//
//   - entries hidden by .gitignore, .shiroignore (nested files scoped to
//     their directory, `!` negation, anchoring, `**`) or .git/info/exclude
//     are not reported, and hidden directories are not entered, unless
//     opts.IncludeIgnored is set;
//   - .git and node_modules are never reported or entered;
//   - symbolic links are reported (d.Type() has fs.ModeSymlink) but never
//     followed, so a link cannot lead the walk out of the workspace or into
//     a cycle.
//
// fn receives each entry's path relative to the workspace root, with
// forward slashes, and its DirEntry. Entries come in lexical order, each
// directory before its contents. Returning fs.SkipDir from fn for a
// directory skips its contents; fs.SkipAll ends the walk without error; any
// other error ends the walk and is returned. Directories that cannot be
// read below root are skipped silently. The walk checks ctx between
// directories.
func Walk(ctx context.Context, env *Env, root string, opts WalkOptions, fn func(rel string, d fs.DirEntry) error) error {
	abs, err := env.Resolve(root)
	if err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", env.Rel(abs))
	}
	w := walker{ctx: ctx, opts: opts, fn: fn}
	rel := env.Rel(abs)
	// Ignore rules apply from the top of the tree the directory is in: the
	// workspace, or a read-only folder outside it (whose paths stay
	// absolute).
	top, inTop := env.Root, rel
	if dir, ok := env.readRootOf(abs); ok && !fsutil.Within(env.Root, abs) {
		top = dir
		inTop, _ = filepath.Rel(dir, abs)
		inTop = filepath.ToSlash(inTop)
	}
	var comps []string
	if inTop != "." {
		comps = strings.Split(inTop, "/")
	}
	var rules *IgnoreRules
	if !opts.IncludeIgnored {
		rules = RulesAlong(top, comps)
	}
	err = w.dir(abs, rel, comps, rules, 1)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// RulesAlong builds the rules in force in the directory comps below root by
// loading every ignore file on the way down from the root.
func RulesAlong(root string, comps []string) *IgnoreRules {
	rules := rootRules(root)
	dir := root
	for i, c := range comps {
		dir = filepath.Join(dir, c)
		rules = rules.WithDir(dir, comps[:i+1])
	}
	return rules
}

type walker struct {
	ctx  context.Context
	opts WalkOptions
	fn   func(rel string, d fs.DirEntry) error
}

// dir reports the entries of one directory and recurses. rel is "." for the
// workspace root. comps is reused as a scratch buffer for the entries'
// component paths, which the matcher does not keep.
func (w *walker) dir(abs, rel string, comps []string, rules *IgnoreRules, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		if depth == 1 {
			return err
		}
		return nil
	}
	prefix := rel + "/"
	if rel == "." {
		prefix = ""
	}
	for _, e := range entries {
		name := e.Name()
		if alwaysSkipped(name) {
			continue
		}
		isDir := e.IsDir()
		childComps := append(comps, name)
		if rules != nil && rules.ignored(childComps, isDir) {
			continue
		}
		childRel := prefix + name
		err := w.fn(childRel, e)
		if errors.Is(err, fs.SkipDir) {
			if isDir {
				continue
			}
			return nil // as in filepath.WalkDir: skip the rest of this directory
		}
		if err != nil {
			return err
		}
		if !isDir || (w.opts.MaxDepth > 0 && depth >= w.opts.MaxDepth) {
			continue
		}
		childAbs := filepath.Join(abs, name)
		childRules := rules
		if rules != nil {
			// The child's patterns keep their own copy of the components as
			// their domain (ParsePattern copies it).
			childRules = rules.WithDir(childAbs, childComps)
		}
		if err := w.dir(childAbs, childRel, childComps, childRules, depth+1); err != nil {
			return err
		}
	}
	return nil
}
