package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Policy is what the sandbox allows, as configured.
type Policy struct {
	Mode Mode
	// Workspace is the workspace root.
	Workspace string
	// Home is the user's home directory, where the secret locations are.
	Home string
	// State is shiro's own folder ($SHIRO_HOME/.shiro-neko): its config,
	// keys and trust stores are secret, and nothing in it is writable.
	State string
	// Quarantine is where a git redirect a command planted is moved
	// ($STATE/quarantine, config.Paths.Quarantine); empty moves it beside
	// itself, under a name git does not read.
	Quarantine string
	// ConfigFile is the user's config file, named in hints.
	ConfigFile string
	// Temp is the shared temp folder, writable in WorkspaceWrite; empty
	// means the system's (/tmp on Linux, os.TempDir elsewhere). On Linux
	// commands see a private folder of the session in its place.
	Temp string
	// Writable are more paths that are writable in WorkspaceWrite
	// (sandbox.writable), absolute. Paths that do not exist are left out.
	Writable []string
	// CacheEnv, when not nil, is the environment commands start from:
	// the caches and stores of the common toolchains that it (or `go
	// env`) names, or that exist where the tools keep them by default,
	// become writable in WorkspaceWrite (caches.go). They are looked for
	// once, in the background, from Start.
	CacheEnv []string
	// Caches are the toolchains' caches found (filled in by the sandbox).
	Caches []Cache
	// ToolSecrets are more secret locations the toolchains' settings name
	// (CARGO_HOME's credentials when it is not ~/.cargo, say); filled in
	// by the sandbox.
	ToolSecrets []string
	// Network lets commands connect out (sandbox.network).
	Network bool
	// UnixSockets are the pathname Unix sockets outside the writable
	// folders that commands may connect to (sandbox.unixSockets), absolute.
	UnixSockets []string
	// Resources bound each command, in every mode (resources.go).
	Resources Resources
}

// homeSecrets are the places under the home directory that hold
// credentials: keys, cloud and cluster credentials, tokens, password
// stores. Commands can neither read nor write them.
func homeSecrets() []string {
	return []string{
		".ssh", ".gnupg", ".password-store", ".local/share/keyrings",
		".aws", ".azure", ".kube", ".config/gcloud", ".config/gh",
		".docker/config.json", ".netrc", ".git-credentials", ".config/git/credentials",
		".pgpass", ".pypirc", ".vault-token",
		".cargo/credentials", ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json",
		// The package managers' own files that hold registry tokens:
		// their caches are writable (caches.go), their credentials not.
		".npmrc", ".yarnrc", ".yarnrc.yml", ".m2/settings.xml", ".m2/settings-security.xml",
		".gradle/gradle.properties",
	}
}

// stateReadable are the entries of shiro's own folder that commands may
// read: what hooks run from and what skills and plugins are made of.
// Everything else there (config.json with the API key, hooks.json and any
// other trust store or key, history, sessions) is secret.
func stateReadable() []string {
	return []string{"hook-cache", "hooks", "skills", "commands", "plugins", "registry"}
}

// devices are the device files every command may read and write: the
// bit buckets, the random sources and the terminal.
func devices() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}
}

// normalize makes every path absolute with symlinks resolved, as the
// kernel sees them, and drops writable paths that do not exist (notes say
// which).
func (p Policy) normalize() (Policy, []string, error) {
	var notes []string
	if p.Workspace == "" {
		return p, nil, errors.New("sandbox: no workspace")
	}
	ws, err := canonical(p.Workspace)
	if err != nil {
		return p, nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	p.Workspace = ws
	if p.Temp == "" {
		p.Temp = systemTemp()
	}
	if p.Temp, err = canonical(p.Temp); err != nil {
		notes = append(notes, fmt.Sprintf("the temp dir is not writable: %v", err))
		p.Temp = ""
	}
	if p.Home != "" {
		if h, err := canonical(p.Home); err == nil {
			p.Home = h
		}
	}
	if p.State != "" {
		if s, err := canonical(p.State); err == nil {
			p.State = s
		}
	}
	var writable []string
	for _, w := range p.Writable {
		c, err := canonical(w)
		if err != nil {
			notes = append(notes, fmt.Sprintf("sandbox.writable %s is left out: %v", w, err))
			continue
		}
		writable = append(writable, c)
	}
	p.Writable = writable
	sockets := make([]string, 0, len(p.UnixSockets))
	for _, s := range p.UnixSockets {
		if !filepath.IsAbs(s) {
			notes = append(notes, fmt.Sprintf("sandbox.unixSockets %s is left out: it must be an absolute path", s))
			continue
		}
		sockets = append(sockets, socketPath(s))
	}
	p.UnixSockets = sockets
	return p, notes, nil
}

// socketPath is the socket at path as the kernel sees it: with every
// symlink resolved (/var/run is often a link to /run), its folder's when
// the socket does not exist yet (a daemon not started).
func socketPath(path string) string {
	if c, err := canonical(path); err == nil {
		return c
	}
	if dir, err := canonical(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return filepath.Clean(path)
}

// canonical is path made absolute, with every symlink resolved; the path
// must exist.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// writeRoots are the folders a command may write beneath.
func (p Policy) writeRoots() []string {
	if p.Mode != WorkspaceWrite {
		return nil
	}
	roots := []string{p.Workspace}
	if p.Temp != "" && p.Temp != p.Workspace {
		roots = append(roots, p.Temp)
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		roots = append(roots, "/dev/shm")
	}
	for _, w := range p.Writable {
		if !slices.Contains(roots, w) {
			roots = append(roots, w)
		}
	}
	for _, c := range p.Caches {
		if !slices.Contains(roots, c.Path) {
			roots = append(roots, c.Path)
		}
	}
	return roots
}

// secrets are the existing secret locations: under the home directory,
// and every entry of shiro's own folder but those commands may read.
func (p Policy) secrets() []string {
	var out []string
	if p.Home != "" && p.Home != "/" {
		for _, rel := range homeSecrets() {
			path := filepath.Join(p.Home, rel)
			if _, err := os.Lstat(path); err == nil {
				out = append(out, path)
			}
		}
	}
	for _, path := range p.ToolSecrets {
		if _, err := os.Lstat(path); err == nil && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	if p.State != "" {
		entries, _ := os.ReadDir(p.State)
		for _, e := range entries {
			if !slices.Contains(stateReadable(), e.Name()) {
				out = append(out, filepath.Join(p.State, e.Name()))
			}
		}
	}
	return out
}

// protection is a path that must stay as it is although it lies inside a
// folder commands may write: Landlock grants a folder with everything
// beneath it, so only a mount can keep part of it out.
type protection struct {
	Kind mountKind `json:"kind"`
	Path string    `json:"path"`
}

// mountKind is what is done to a protected path in the command's private
// mount namespace.
type mountKind string

const (
	// pin binds a directory onto itself: a mount point cannot be renamed
	// or removed, so nothing can be swapped in its place.
	pin mountKind = "pin"
	// readOnly binds a file or directory onto itself, read-only.
	readOnly mountKind = "read-only"
	// readOnlyDir is readOnly for a directory that is created, empty,
	// when it does not exist yet (.git/hooks).
	readOnlyDir mountKind = "read-only-dir"
	// hide covers a secret with something empty: an empty read-only
	// directory, or /dev/null for a file.
	hide mountKind = "hide"
)

// protections lists what must be protected by mounts: the hooks, config
// and redirects of the workspace's git directories (gitProtections), its
// .shiro,
// shiro's own folder and the secret locations (secrets, as p.secrets
// found them), where they lie inside a writable folder. The workspace and
// .git are pinned, so that they cannot be renamed away and replaced. The
// list is ordered parents first, as the mounts must be made.
func (p Policy) protections(secrets []string) []protection {
	roots := p.writeRoots()
	if len(roots) == 0 {
		return nil
	}
	var out []protection
	inside := func(path string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return fsutil.Within(r, path) })
	}
	isDir := func(path string) bool { fi, err := os.Lstat(path); return err == nil && fi.IsDir() }
	gitDir := filepath.Join(p.Workspace, ".git")
	if fi, err := os.Lstat(gitDir); err == nil {
		switch {
		case fi.IsDir():
			out = append(out, protection{pin, gitDir})
		case fi.Mode().IsRegular():
			// A worktree's or submodule's pointer to its git dir.
			out = append(out, protection{readOnly, gitDir})
		}
	}
	out = append(out, p.gitProtections()...)
	if project := filepath.Join(p.Workspace, ".shiro"); isDir(project) {
		out = append(out, protection{readOnly, project})
	}
	if p.State != "" && inside(p.State) && isDir(p.State) {
		out = append(out, protection{readOnly, p.State})
	}
	for _, s := range secrets {
		if inside(s) {
			out = append(out, protection{hide, s})
		}
	}
	if len(out) > 0 {
		out = append(out, protection{pin, p.Workspace})
	}
	slices.SortStableFunc(out, func(a, b protection) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// gitDirs are the git directories of the workspace whose hooks folder and
// config file stay read-only: its .git, whether it exists yet or not, and
// the workspace itself when it is a bare repository (whose hooks and
// config lie at its top). The mounts, the Seatbelt profile and the hints
// all keep the same ones.
func (p Policy) gitDirs() []string {
	dirs := []string{filepath.Join(p.Workspace, ".git")}
	if fsutil.IsGitDir(p.Workspace) {
		dirs = append(dirs, p.Workspace)
	}
	return dirs
}

func isRegular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// carving is what cutting excluded out of root needs: the excluded paths,
// and their ancestors, whose other entries are granted one by one. The
// grants together cover everything beneath root except excluded and
// what lies beneath them. Symlinks are never granted: Landlock follows
// them to their target, which may be excluded; their targets are granted
// where they lie.
type carving struct {
	excluded, ancestors map[string]bool
}

// newCarve sets out the carve of root around excluded; done when no
// folder needs listing, whole being the grants then: root itself, or
// nothing when root is excluded.
func newCarve(root string, excluded []string) (c carving, whole []string, done bool) {
	c = carving{excluded: map[string]bool{}, ancestors: map[string]bool{}}
	for _, e := range excluded {
		e = filepath.Clean(e)
		if e == root {
			return c, nil, true
		}
		if !fsutil.Within(root, e) {
			continue
		}
		c.excluded[e] = true
		for a := filepath.Dir(e); ; a = filepath.Dir(a) {
			c.ancestors[a] = true
			if a == root || a == filepath.Dir(a) {
				break
			}
		}
	}
	if len(c.excluded) == 0 {
		return c, []string{root}, true
	}
	return c, nil, false
}

// folders are the folders to list, sorted.
func (c carving) folders() []string {
	return slices.Sorted(maps.Keys(c.ancestors))
}

// entries lists folder (with readDir) and returns what of it is granted.
func (c carving) entries(folder string, readDir func(string) ([]os.DirEntry, error)) []string {
	list, err := readDir(folder)
	if err != nil {
		return nil
	}
	var grants []string
	for _, entry := range list {
		path := filepath.Join(folder, entry.Name())
		if c.excluded[path] || c.ancestors[path] || entry.Type()&fs.ModeSymlink != 0 {
			continue
		}
		grants = append(grants, path)
	}
	return grants
}

// writable reports whether a command may write path under p (ignoring
// what mounts protect).
func (p Policy) writable(path string) bool {
	return slices.ContainsFunc(p.writeRoots(), func(r string) bool { return fsutil.Within(r, path) })
}
