package workflow

import (
	"os"
	"path/filepath"
)

// scaffoldTargets are what the scaffold provides, relative to the root it
// writes in; a missing one is worth offering the scaffold for.
func scaffoldTargets() []string { return []string{"TODO.md", "ROADMAP.md", "docs"} }

// scaffoldRoot is where Scaffold writes for dir: its git root, or dir
// itself outside git.
func scaffoldRoot(dir string) string {
	if root := GitRoot(dir); root != "" {
		return root
	}
	return dir
}

// NeedsScaffold reports whether the scaffold would add something for the
// project at root: TODO.md, ROADMAP.md or docs/ is missing at its git root.
// /init asks the person only then.
func NeedsScaffold(root string) bool {
	base := scaffoldRoot(root)
	for _, name := range scaffoldTargets() {
		if _, err := os.Stat(filepath.Join(base, name)); err != nil {
			return true
		}
	}
	return false
}

const initPrompt = `Write AGENTS.md at the root of this repository: a short guide for coding agents working here, at most 100 lines.

Put in only what you have verified in this session by reading files or running read-only commands:
- what the project is, in two or three sentences;
- how to build, test, lint and run it: the exact commands, taken from the build files, CI configuration or scripts you read;
- the layout: the directories that matter and what lives in each;
- conventions the code follows (naming, error handling, tests) that you saw in several places;
- gotchas a newcomer would hit, if you found any.

Do not guess: leave out anything you could not confirm, and never invent commands, paths or tools. If AGENTS.md already exists, read it first, keep what is still true, correct what is not, and keep the result under 100 lines. Write the file with your file tools, then reply with a two-line summary of what you wrote.`

const initScaffoldNote = `

The person also agreed to the project workflow files, and shiro has just created whichever of TODO.md, ROADMAP.md and docs/README.md were missing, from empty templates (existing files were left alone). Mention in AGENTS.md that work is tracked in TODO.md (now, next, maintenance), milestones in ROADMAP.md and developer documentation in docs/. Add an item to TODO.md only for concrete open work you verified (a failing test, a TODO comment you read); otherwise leave the templates as they are.`

// InitPrompt is the turn /init sends: the agent writes AGENTS.md with
// verified facts only, at most 100 lines. With offerScaffold, the person
// said yes to the workflow scaffold; the front end has already called
// Scaffold (no model writes files without approval), and the prompt tells
// the agent so.
func InitPrompt(offerScaffold bool) string {
	if offerScaffold {
		return initPrompt + initScaffoldNote
	}
	return initPrompt
}
