package workflow

import (
	"os"
	"path/filepath"
	"strings"
)

// PlanLine is the policy's pointer to the plan skill (v9 #7).
const PlanLine = "- before non-trivial work, load the `plan` skill (spec-first) and follow it"

// Tracks reports whether the project at root tracks its progress: its git
// root has TODO.md, ROADMAP.md or the docs directory.
func Tracks(root, docsDir string) bool {
	_, found := Trackers(root, docsDir)
	return len(found) > 0
}

// Trackers returns the git root of root ("" outside a repository) and
// what it has of TODO.md, ROADMAP.md and the docs directory (named with a
// trailing slash), in that order.
func Trackers(root, docsDir string) (gitRoot string, found []string) {
	g := GitRoot(root)
	if g == "" {
		return "", nil
	}
	for _, name := range []string{"TODO.md", "ROADMAP.md", docsDir} {
		if name == "" {
			continue
		}
		info, err := os.Stat(filepath.Join(g, name))
		if err != nil {
			continue
		}
		if info.IsDir() {
			name = strings.TrimSuffix(name, "/") + "/"
		}
		found = append(found, name)
	}
	return g, found
}

// Policy is the prompt's project-workflow section, or "" when the project
// does not track its progress.
func Policy(root, docsDir string) string {
	if !Tracks(root, docsDir) {
		return ""
	}
	if docsDir == "" {
		docsDir = "docs"
	}
	return "# Project workflow\n" +
		"This project tracks its progress in files. Work with them:\n" +
		"- read TODO.md before starting, and mark what you did (and what you found) when you finish\n" +
		"- when a milestone ships, update ROADMAP.md\n" +
		PlanLine + "\n" +
		"- add or update tests alongside code, and document behaviour changes in " + docsDir + "/\n" +
		"- verify with the project's own check commands before you say the work is done"
}
