package workflow

import (
	"os"
	"path/filepath"
)

// PlanLine is the policy's pointer to the plan skill (v9 #7).
const PlanLine = "- before non-trivial work, load the `plan` skill (spec-first) and follow it"

// Tracks reports whether the project at root tracks its progress: its git
// root has TODO.md, ROADMAP.md or the docs directory.
func Tracks(root, docsDir string) bool {
	g := GitRoot(root)
	if g == "" {
		return false
	}
	for _, name := range []string{"TODO.md", "ROADMAP.md", docsDir} {
		if name == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(g, name)); err == nil {
			return true
		}
	}
	return false
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
