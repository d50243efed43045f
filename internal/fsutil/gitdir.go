package fsutil

import (
	"os"
	"path/filepath"
)

// IsGitDir reports whether dir has a git directory's own layout: a HEAD
// file, an objects folder and a refs folder, which is what git looks for
// before it takes a folder for a repository. It holds for a .git folder
// and for a bare repository, whose config and hooks then lie at its top.
func IsGitDir(dir string) bool {
	head, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() && head.Mode()&os.ModeSymlink == 0 {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		fi, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// GitControlEntries are the entries of a git directory that decide what
// git runs when the person next uses it: hooks/ and config, and what sends
// git elsewhere for them (commondir, config.worktree, gitdir, info/ with
// its attributes). The sandbox keeps them from commands and the file tools
// from the model; both start from this one list.
func GitControlEntries() []string {
	return []string{"hooks", "info", "config", "commondir", "config.worktree", "gitdir"}
}
