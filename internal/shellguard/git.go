package shellguard

import (
	"path"
	"strings"
)

// whyRef is the reason for deleting a ref outright.
const whyRef = "deletes a branch or ref without a merge check"

// gitRule finds git's subcommand past the global options (-C dir,
// -c key=value, --git-dir …) and applies the rule for it. Plumbing that
// does what a porcelain rule refuses is judged as that porcelain: the
// guard refuses what a command does to work, not its spelling.
func gitRule(args []arg) rule {
	i := 1
	cleanUnforced := false
	for i < len(args) {
		t := args[i].text
		if !args[i].lit || !strings.HasPrefix(t, "-") {
			break
		}
		if setting, ok := strings.CutPrefix(t, "-c"); ok {
			if setting == "" && i+1 < len(args) {
				setting = args[i+1].text
			}
			cleanUnforced = cleanUnforced || noForceNeeded(setting)
		}
		if oneOf(t, gitValued...) {
			i++
		}
		i++
	}
	if i >= len(args) {
		return rule{}
	}
	rest := args[i+1:]
	switch args[i].text {
	case "reset":
		if anyOption(rest, func(t string) bool { return LongPrefix(t, "--hard", 3) }) {
			return rule{category: CategoryGitReset, why: whyReset}
		}
	case "clean":
		force := cleanUnforced || anyOption(rest, func(t string) bool { return clusterHas(t, "f", "e") || LongPrefix(t, "--force", 3) })
		dry := anyOption(rest, func(t string) bool { return clusterHas(t, "n", "e") || LongPrefix(t, "--dry-run", 3) })
		if force && !dry {
			return rule{category: CategoryGitClean, why: whyClean}
		}
	case "checkout", "restore", "switch":
		if overwritesWorkTree(args[i].text, rest) {
			return rule{category: CategoryGitReset, why: whyReset}
		}
	case "read-tree":
		// -u --reset: the index and the work tree become the tree given.
		update := anyOption(rest, func(t string) bool { return clusterHas(t, "u", "") })
		reset := anyOption(rest, func(t string) bool { return LongPrefix(t, "--reset", 5) })
		if update && reset {
			return rule{category: CategoryGitReset, why: whyReset}
		}
	case "checkout-index":
		// -f overwrites files that exist; with -a (or names) it is checkout -- .
		if anyOption(rest, func(t string) bool { return clusterHas(t, "f", "") || LongPrefix(t, "--force", 3) }) {
			return rule{category: CategoryGitReset, why: whyReset}
		}
	case "update-ref":
		if anyOption(rest, func(t string) bool { return clusterHas(t, "d", "m") }) {
			return rule{category: CategoryGitBranch, why: whyRef}
		}
	case "push", "send-pack":
		return pushRule(rest)
	case "branch":
		if anyOption(rest, func(t string) bool { return clusterHas(t, "D", "ut") }) {
			return rule{category: CategoryGitBranch, why: whyBranch}
		}
		del := anyOption(rest, func(t string) bool { return clusterHas(t, "d", "ut") || LongPrefix(t, "--delete", 4) })
		force := anyOption(rest, func(t string) bool { return clusterHas(t, "f", "ut") || LongPrefix(t, "--force", 4) })
		if del && force {
			return rule{category: CategoryGitBranch, why: whyBranch}
		}
	}
	return rule{}
}

// noForceNeeded reports a `-c clean.requireForce=<false>` setting, with
// which git clean deletes without -f.
func noForceNeeded(setting string) bool {
	key, value, ok := strings.Cut(setting, "=")
	if !ok || !strings.EqualFold(key, "clean.requireForce") {
		return false
	}
	return oneOf(strings.ToLower(value), "", "false", "no", "off", "0")
}

// overwritesWorkTree reports a checkout, restore or switch that replaces
// uncommitted changes: forced (-f, --force, --discard-changes), or given a
// pathspec that covers many files (`.`, `:/`, a glob, pathspec magic). A
// single file named is let through, as `rm` of one file is. restore
// --staged without --worktree changes only the index.
func overwritesWorkTree(sub string, rest []arg) bool {
	forced := anyOption(rest, func(t string) bool {
		return sub != "restore" && (clusterHas(t, "f", "bBcC") || LongPrefix(t, "--force", 3)) || LongPrefix(t, "--discard-changes", 3)
	})
	if forced {
		return true
	}
	if sub == "switch" {
		return false
	}
	if sub == "restore" {
		staged := anyOption(rest, func(t string) bool { return clusterHas(t, "S", "s") || LongPrefix(t, "--staged", 4) })
		worktree := anyOption(rest, func(t string) bool { return clusterHas(t, "W", "s") || LongPrefix(t, "--worktree", 3) })
		if staged && !worktree {
			return false
		}
	}
	for _, a := range rest {
		if a.lit && !strings.HasPrefix(a.text, "-") && broadPathspec(a.text) {
			return true
		}
	}
	return false
}

// broadPathspec reports a pathspec that stands for many files: the current
// or top directory, a glob, or pathspec magic (`:(top)`, `:!x`).
func broadPathspec(t string) bool {
	return path.Clean(t) == "." || path.Clean(t) == ".." || strings.HasPrefix(t, ":") || strings.ContainsAny(t, "*?[")
}

// pushRule: --force, -f, --force-with-lease[=…], --force-if-includes and
// --mirror rewrite remote history; --delete, -d, --prune and a `:ref`
// refspec delete remote refs; a `+ref` refspec forces that ref. With
// --dry-run (-n) nothing is pushed. Options' values are skipped, so that
// `-o -n` is no dry run.
func pushRule(rest []arg) rule {
	found, dry := rule{}, false
	note := func(r rule) {
		if found.category == "" {
			found = r
		}
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		t := a.text
		switch {
		case a.lit && t == "--":
			note(refspecRule(rest[i+1:]))
			i = len(rest)
		case strings.HasPrefix(t, "--"):
			for _, full := range []string{"--force", "--force-with-lease", "--force-if-includes", "--mirror"} {
				if LongPrefix(t, full, 3) {
					note(rule{category: CategoryGitPush, why: whyForcePush})
				}
			}
			if LongPrefix(t, "--delete", 3) || LongPrefix(t, "--prune", 4) {
				note(rule{category: CategoryGitPush, why: whyPushDel})
			}
			dry = dry || LongPrefix(t, "--dry-run", 5)
			if pushValued(t) {
				i++ // its value
			}
		case shortCluster(t):
			if clusterHas(t, "f", "o") {
				note(rule{category: CategoryGitPush, why: whyForcePush})
			}
			if clusterHas(t, "d", "o") {
				note(rule{category: CategoryGitPush, why: whyPushDel})
			}
			dry = dry || clusterHas(t, "n", "o")
			if strings.HasSuffix(t, "o") {
				i++ // -o's value
			}
		default:
			note(refspecRule(rest[i : i+1]))
		}
	}
	if dry {
		return rule{} // --dry-run only says what would be pushed
	}
	return found
}

// pushValued reports a long option of git push that takes the next word
// as its value, abbreviated or not (an ambiguous abbreviation makes git
// fail, so skipping its next word cannot hide what runs).
func pushValued(t string) bool {
	if strings.Contains(t, "=") {
		return false
	}
	for _, full := range []string{"--repo", "--receive-pack", "--exec", "--push-option"} {
		if LongPrefix(t, full, 3) {
			return true
		}
	}
	return false
}

func refspecRule(specs []arg) rule {
	for _, a := range specs {
		switch {
		case strings.HasPrefix(a.text, "+"):
			return rule{category: CategoryGitPush, why: whyForcePush}
		case strings.HasPrefix(a.text, ":") && a.text != ":":
			return rule{category: CategoryGitPush, why: whyPushDel}
		}
	}
	return rule{}
}

// anyOption applies match to each word before a "--".
func anyOption(args []arg, match func(string) bool) bool {
	for _, a := range args {
		if a.lit && a.text == "--" {
			return false
		}
		if strings.HasPrefix(a.text, "-") && match(a.text) {
			return true
		}
	}
	return false
}

// clusterHas reports whether the short-option cluster word holds one of
// flags before any option in valued (whose value is the rest of the
// cluster: `git clean -ef` excludes "f").
func clusterHas(word, flags, valued string) bool {
	if !shortCluster(word) {
		return false
	}
	for i := 1; i < len(word); i++ {
		c := word[i]
		if strings.IndexByte(flags, c) >= 0 {
			return true
		}
		if strings.IndexByte(valued, c) >= 0 {
			return false
		}
	}
	return false
}
