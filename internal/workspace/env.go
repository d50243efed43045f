package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/proc"
)

// BinarySniff is how many leading bytes decide whether a file is binary.
const BinarySniff = 8192

// Env is what every tool shares: the workspace and the programs it may use.
type Env struct {
	// Root is the workspace root, absolute with symlinks resolved.
	Root string
	// Ripgrep is the path of rg, or empty when it is not installed.
	Ripgrep string
	// Shell is the shell bash runs commands with (`<shell> -c`, never a
	// login shell).
	Shell string
	// ShellEnv is the environment for commands; nil inherits the process's.
	ShellEnv []string
	// EnvPassthrough names variables commands get even though the scrub
	// would withhold them (the user's env.passthrough; see cmdenv.go).
	EnvPassthrough []string
	// Launcher, when set, is what every command run for the workspace (bash,
	// background jobs, run_checks) is executed through: the one place where
	// an OS sandbox confines them all (see proc.Launcher). Nil runs them
	// directly.
	Launcher proc.Launcher

	// jail is the root's descriptor for the jail-safe operations (root.go),
	// opened on first use.
	jail *rootCache
	// reads are the folders outside the workspace that may be read and
	// never written (readroots.go).
	reads *readRoots
	// secretVals caches the values of the secret files (secretvalues.go).
	secretVals *secretCache
}

// New builds an Env rooted at dir.
func New(dir string) (*Env, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	return &Env{Root: root, Shell: "bash", jail: &rootCache{}, reads: &readRoots{}, secretVals: &secretCache{}}, nil
}

// ErrEscape is returned for a path outside the workspace.
var ErrEscape = errors.New("path escapes workspace")

// Resolve maps a path given by the model to an absolute path inside the
// workspace. Relative paths are taken from the root. Symlinks in the part of
// the path that exists are resolved before the check, so a link pointing
// out of the workspace cannot be used to read or write outside it.
func (e *Env) Resolve(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path contains a NUL byte")
	}
	if p == "" {
		p = "."
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.Root, p)
	}
	abs = filepath.Clean(abs)
	real, err := resolveExisting(abs)
	if err != nil {
		return "", err
	}
	if !fsutil.Within(e.Root, real) {
		if _, ok := e.readRootOf(real); !ok {
			return "", fmt.Errorf("%w: %s", ErrEscape, p)
		}
	}
	return real, nil
}

// Rel returns abs relative to the root, with forward slashes, for output
// and for the file operations. A path in a read-only folder outside the
// workspace stays absolute: that is how the file operations tell it apart.
func (e *Env) Rel(abs string) string {
	if !fsutil.Within(e.Root, abs) {
		if _, ok := e.readRootOf(abs); ok {
			return filepath.ToSlash(abs)
		}
	}
	r, err := filepath.Rel(e.Root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// resolveExisting evaluates symlinks in the longest existing prefix of abs
// and re-attaches the part that does not exist yet.
func resolveExisting(abs string) (string, error) {
	rest := ""
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if rest == "" {
				return real, nil
			}
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling symlink is refused rather than followed blindly:
		// writing through it would create its target wherever it points.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a dangling symlink", cur)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// IsBinary reports whether data (a file's first bytes) looks binary: it
// holds a NUL byte within the first BinarySniff bytes.
func IsBinary(data []byte) bool {
	if len(data) > BinarySniff {
		data = data[:BinarySniff]
	}
	for _, b := range data {
		if b == 0 {
			return true
		}
	}
	return false
}
