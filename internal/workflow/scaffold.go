// Package workflow supports projects that track their progress in TODO.md,
// ROADMAP.md and a docs directory: it finds the git root, renders the
// workflow policy for the prompt, nudges when files change without a task
// list update, and scaffolds the tracker files on request.
package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// GitRoot walks up from dir to the directory holding .git (a directory or,
// for worktrees and submodules, a file). It returns "" outside a repository.
func GitRoot(dir string) string {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// Templates for the scaffold, relative to the root they are written in.
func templates() []struct{ path, body string } {
	return []struct{ path, body string }{
		{"TODO.md", "# TODO\n\nWhat is being worked on, what comes next, and upkeep that should not be forgotten.\n\n## Now\n\n_Empty._\n\n## Next\n\n_Empty._\n\n## Maintenance\n\n_Empty._\n"},
		{"ROADMAP.md", "# Roadmap\n\nMilestones in the order they are meant to ship.\n\n## Next\n\n_Empty._\n"},
		{filepath.Join("docs", "README.md"), "# Docs\n\nDeveloper documentation for this project.\n"},
	}
}

// ScaffoldResult lists what Scaffold wrote and what it left alone.
type ScaffoldResult struct {
	Root    string
	Written []string
	Kept    []string
}

// Scaffold writes TODO.md, ROADMAP.md and docs/README.md at the git root of
// dir (at dir itself outside git), never overwriting a file that exists.
func Scaffold(dir string) (ScaffoldResult, error) {
	root := scaffoldRoot(dir)
	res := ScaffoldResult{Root: root}
	for _, t := range templates() {
		path := filepath.Join(root, t.path)
		wrote, err := createNew(path, []byte(t.body))
		if err != nil {
			return res, err
		}
		if wrote {
			res.Written = append(res.Written, path)
		} else {
			res.Kept = append(res.Kept, path)
		}
	}
	return res, nil
}

// createNew writes data to path only if nothing is there; O_EXCL makes the
// check and the creation one step, so an existing file is never touched.
func createNew(path string, data []byte) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("scaffold: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("scaffold: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		_ = os.Remove(path)
		return false, fmt.Errorf("scaffold %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("scaffold %s: %w", path, err)
	}
	return true, nil
}
