// Package fileop holds what the tool families share about workspace
// files: finding them in the jail with messages the model can act on,
// reading path arguments and titling calls, reading text files, and a
// computed change to one file that is shown before it runs and written
// only if the file still holds what it was computed from.
//
// Paths go through workspace.Env.Resolve once, for the check and the name
// results show (its path from the root); every read and write after that
// goes through the Env's root-relative operations, which cannot be led out
// of the workspace by a directory swapped for a symlink in between.
package fileop

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"syscall"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Rel resolves p in the jail and returns its path from the workspace root,
// which is both how results name it and what the Env's file operations
// take.
func Rel(env *workspace.Env, p string) (string, error) {
	abs, err := env.Resolve(p)
	if err != nil {
		return "", err
	}
	return env.Rel(abs), nil
}

// OrRoot is how the tools read an absent path: the workspace root.
func OrRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// PathSubjects is what permission rules match for a call about one
// optional path: the path, or the workspace root (".") when there is none.
func PathSubjects(p string) []string { return []string{OrRoot(p)} }

// RequirePath is the Check of a tool whose path must be given.
func RequirePath(p string) error {
	if p == "" {
		return tool.Failf("path is required")
	}
	return nil
}

// Stat resolves p in the jail and describes what is there, turning the
// common failures into messages the model can act on.
func Stat(env *workspace.Env, p string) (rel string, fi fs.FileInfo, err error) {
	rel, err = Rel(env, p)
	if err != nil {
		return "", nil, err
	}
	fi, err = env.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return rel, nil, tool.Failf("No such file: %s", rel)
	}
	if err != nil {
		return rel, nil, fmt.Errorf("%s: %w", rel, err)
	}
	return rel, fi, nil
}

// ResolveNew resolves the path of a file to create.
func ResolveNew(env *workspace.Env, p string) (string, error) {
	rel, err := Rel(env, p)
	if errors.Is(err, syscall.ENOTDIR) {
		return "", tool.Failf("cannot create %s: part of its directory path is a file, not a directory", p)
	}
	return rel, err
}

// CheckParentDirs makes sure the directories above rel exist or can be
// created: the nearest existing ancestor must be a directory.
func CheckParentDirs(env *workspace.Env, rel string) error {
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		fi, err := env.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return tool.Failf("cannot create %s: %s is a file, not a directory", rel, dir)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if dir == "." {
			return nil
		}
	}
}

// RegularEntry resolves a path whose last element names the entry itself,
// not what a symlink there points to, and requires a regular file. It is
// for removing and moving: the directory is resolved in the jail, the last
// element is not followed. verb completes "… files only" in the refusal
// ("move_file moves").
func RegularEntry(env *workspace.Env, p, verb string) (rel string, fi fs.FileInfo, err error) {
	if p == "" {
		return "", nil, tool.Failf("path is required")
	}
	clean := filepath.Clean(p)
	base := filepath.Base(clean)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return "", nil, tool.Failf("%s names a directory, not a file", p)
	}
	dir, err := env.Resolve(filepath.Dir(clean))
	if err != nil {
		if errors.Is(err, workspace.ErrEscape) {
			return "", nil, fmt.Errorf("%w: %s", workspace.ErrEscape, p)
		}
		return "", nil, err
	}
	rel = env.Rel(filepath.Join(dir, base))
	fi, err = env.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, tool.Failf("No such file: %s", rel)
	case err != nil:
		return "", nil, fmt.Errorf("%s: %w", rel, err)
	case fi.IsDir():
		return "", nil, tool.Failf("%s is a directory; %s one file at a time (use bash for directories)", rel, verb)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", nil, tool.Failf("%s is a symbolic link; %s regular files only (use bash for links)", rel, verb)
	case !fi.Mode().IsRegular():
		return "", nil, tool.Failf("%s is not a regular file (%s); %s regular files only", rel, fi.Mode().Type(), verb)
	}
	return rel, fi, nil
}
