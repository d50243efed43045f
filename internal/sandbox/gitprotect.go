package sandbox

import (
	"os"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// What a git directory holds decides what git runs when the person next
// uses it, outside the sandbox: hooks, the config (core.fsmonitor,
// core.hooksPath, aliases, filters), and the files that send git
// elsewhere for them. commondir makes git take its config, hooks and
// everything shared from the folder it names; config.worktree is read
// when the config enables worktreeConfig; info/ holds exclude, attributes
// (which pick filter and diff drivers), sparse-checkout and grafts; and
// each linked worktree's folder under worktrees/ has its own commondir,
// gitdir, config and config.worktree. Those stay as they are. Everything
// else is git's own work and stays writable: objects, refs, logs, the
// index, HEAD and the other head files, packed-refs, lock files, the
// state of a merge, rebase or bisect. objects/info/alternates is left
// writable too: it can only lend git objects to read, never a program to
// run, and git clone --shared writes it.

// gitEntry is a protected entry of a git directory.
type gitEntry struct {
	name string
	dir  bool // a folder, created empty when missing (so it can be mounted)
}

// gitDirEntries are the protected entries of a git directory.
func gitDirEntries() []gitEntry {
	names := fsutil.GitControlEntries()
	out := make([]gitEntry, len(names))
	for i, name := range names {
		out[i] = gitEntry{name: name, dir: name == "hooks" || name == "info"}
	}
	return out
}

// worktreeEntries are the protected files of a linked worktree's folder
// (worktrees/NAME in the git directory).
func worktreeEntries() []string {
	return []string{"commondir", "gitdir", "config", "config.worktree"}
}

// gitProtectedPaths lists the paths of the workspace's git directories
// that commands may not create, change, remove or replace, whether they
// exist now or not: a path beneath one of them is protected too. The
// seatbelt profile denies writes to them. The file tools refuse the same
// entries and more (worktrees/ and modules/ as a whole) in package
// workspace, which starts from the same fsutil.GitControlEntries.
func (p Policy) gitProtectedPaths() []string {
	var out []string
	if gitFile := filepath.Join(p.Workspace, ".git"); isRegular(gitFile) {
		out = append(out, gitFile) // a linked worktree's or submodule's pointer
	}
	for _, dir := range p.gitDirs() {
		for _, e := range gitDirEntries() {
			out = append(out, filepath.Join(dir, e.name))
		}
		for _, wt := range linkedWorktrees(dir) {
			for _, name := range worktreeEntries() {
				out = append(out, filepath.Join(wt, name))
			}
		}
	}
	return out
}

// linkedWorktrees are the folders of dir's linked worktrees as they are
// now (worktrees/NAME).
func linkedWorktrees(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(dir, "worktrees"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, "worktrees", e.Name()))
		}
	}
	return out
}

// gitProtections are the mounts that keep the git directories' protected
// entries as they are: a read-only bind over each one that exists (and
// over hooks/ and info/, made empty when missing). A path that does not
// exist cannot be mounted over; gitGuard moves away what a command
// creates there.
func (p Policy) gitProtections() []protection {
	var out []protection
	isDir := func(path string) bool { fi, err := os.Lstat(path); return err == nil && fi.IsDir() }
	for _, dir := range p.gitDirs() {
		if !isDir(dir) {
			continue
		}
		for _, e := range gitDirEntries() {
			path := filepath.Join(dir, e.name)
			switch {
			case e.dir && (isDir(path) || !exists(path)):
				// A folder that is a symlink cannot be kept: the folder
				// that holds it stays writable, so the link could be
				// replaced.
				out = append(out, protection{Kind: readOnlyDir, Path: path})
			case !e.dir && isRegular(path):
				out = append(out, protection{Kind: readOnly, Path: path})
			}
		}
		for _, wt := range linkedWorktrees(dir) {
			for _, name := range worktreeEntries() {
				if path := filepath.Join(wt, name); isRegular(path) {
					out = append(out, protection{Kind: readOnly, Path: path})
				}
			}
		}
	}
	return out
}
