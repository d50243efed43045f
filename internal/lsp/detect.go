package lsp

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// walkBudget bounds how many entries detection looks at: it runs when a
// session starts, and a huge tree must not delay the first prompt.
const walkBudget = 5000

// skipDirs are folders detection does not enter: vendored and generated
// trees say nothing about the languages the person works in.
func skipDirs() []string {
	return []string{".git", "node_modules", "vendor", "target", "dist", "build", ".venv", "venv", "__pycache__"}
}

// Available is a server the session offers: enabled, its command found,
// and files it answers for present in the workspace.
type Available struct {
	Spec
	// Path is the command as found on PATH.
	Path string
}

// Detect decides, once at session start, which servers the workspace
// gets. The answer is kept for the session, so the tools offered (and
// with them the prompt's cached prefix) stay the same turn after turn.
func Detect(root string, specs []Spec, lookPath func(string) (string, error)) []Available {
	var candidates []Available
	for _, s := range specs {
		if s.Disabled {
			continue
		}
		if p := s.resolve(lookPath); p != "" {
			candidates = append(candidates, Available{Spec: s, Path: p})
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	found := make([]bool, len(candidates))
	left := len(candidates)
	seen := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder is passed over
		}
		seen++
		if seen > walkBudget || left == 0 {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || slices.Contains(skipDirs(), d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		for i, c := range candidates {
			if !found[i] && c.Handles(path) {
				found[i] = true
				left--
			}
		}
		return nil
	})
	var out []Available
	for i, c := range candidates {
		if found[i] {
			out = append(out, c)
		}
	}
	return out
}
