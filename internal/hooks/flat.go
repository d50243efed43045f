package hooks

import (
	"os"
	"path/filepath"
	"strings"
)

// The TypeScript original also took a hook as two files side by side in
// a hooks folder: the manifest `<name>.json` and the executable `<name>`.
// Such a hook is the same hook as the folder holding those two files as
// manifest.json and run: its Dir is the executable's path, and its digest
// is bound to that path and covers both files. Nothing else in the hooks
// folder belongs to it, so nothing else is hashed.

// isFlat reports whether path, a hook's Dir, names a flat hook's
// executable rather than a hook folder.
func isFlat(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && !info.IsDir()
}

// flatManifestPath is where a flat hook's manifest lies.
func flatManifestPath(exe string) string { return exe + ".json" }

// flatPair hashes a flat hook's two files as the bundle's manifest.json
// and run. A symlink counts as its target only while that stays inside
// the hooks folder, as in a hook folder.
func (s *scan) flatPair(name string) error {
	for _, f := range []struct{ name, rel string }{{name + ".json", manifestFile}, {name, runFile}} {
		if _, err := s.root.Stat(f.name); err != nil {
			if os.IsNotExist(err) {
				continue // reported as missing by inspectAt
			}
			return s.fail(f.name, "is a symlink that is absolute, dangling or leads outside the hooks folder, or cannot be read (%v); copy the file into the folder", unwrapPathError(err))
		}
		if err := s.hashFile(f.name, f.rel); err != nil {
			return err
		}
	}
	return nil
}

// hookPaths are the manifest's and the executable's paths of the hook
// whose Dir is dir, for messages.
func hookPaths(dir string) (manifest, run string) {
	if isFlat(dir) {
		return flatManifestPath(dir), dir
	}
	return filepath.Join(dir, manifestFile), filepath.Join(dir, runFile)
}

// flatHooks picks, among the files of a hooks folder that are not
// folders, the executables that have a `<name>.json` beside them: flat
// hooks. What is left is reported as not a hook.
func flatHooks(files []string) (hooks, others []string) {
	names := map[string]bool{}
	for _, f := range files {
		names[f] = true
	}
	paired := map[string]bool{}
	for _, f := range files {
		if exe, ok := strings.CutSuffix(f, ".json"); ok && names[exe] {
			hooks = append(hooks, exe)
			paired[exe], paired[f] = true, true
		}
	}
	for _, f := range files {
		if !paired[f] {
			others = append(others, f)
		}
	}
	return hooks, others
}
