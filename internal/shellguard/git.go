package shellguard

import (
	"path"
	"strings"
)

// whyRef is the reason for deleting a ref outright.
const whyRef = "deletes a branch or ref without a merge check"

// readSubcommand finds git's subcommand past the global options (-C dir,
// -c key=value, --git-dir …). Plumbing that does what a porcelain row
// refuses is judged as that porcelain: the guard refuses what a command
// does to work, not its spelling.
func (s *subject) readSubcommand() {
	i := 1
	for i < len(s.args) {
		t := s.args[i].text
		if !s.args[i].lit || !strings.HasPrefix(t, "-") {
			break
		}
		if setting, ok := strings.CutPrefix(t, "-c"); ok {
			if setting == "" && i+1 < len(s.args) {
				setting = s.args[i+1].text
			}
			s.noForce = s.noForce || noForceNeeded(setting)
		}
		if oneOf(t, gitValued...) {
			i++
		}
		i++
	}
	if i < len(s.args) {
		s.sub, s.rest = s.args[i].text, s.args[i+1:]
	}
}

func hardReset(s subject) bool { return hasOption(s.rest, "", "", "--hard", 3) }

// forcedClean: -f, or clean.requireForce off, unless -n says what would go.
func forcedClean(s subject) bool {
	force := s.noForce || hasOption(s.rest, "f", "e", "--force", 3)
	return force && !hasOption(s.rest, "n", "e", "--dry-run", 3)
}

// resetsTree: read-tree -u --reset makes the index and the work tree the
// tree given.
func resetsTree(s subject) bool {
	return hasOption(s.rest, "u", "", "", 0) && hasOption(s.rest, "", "", "--reset", 5)
}

// forcedCheckoutIndex: -f overwrites files that exist; with -a (or names)
// it is checkout -- .
func forcedCheckoutIndex(s subject) bool { return hasOption(s.rest, "f", "", "--force", 3) }

func deletesRef(s subject) bool { return hasOption(s.rest, "d", "m", "", 0) }

// forceDeletesBranch: -D, or -d with -f.
func forceDeletesBranch(s subject) bool {
	return hasOption(s.rest, "D", "ut", "", 0) ||
		hasOption(s.rest, "d", "ut", "--delete", 4) && hasOption(s.rest, "f", "ut", "--force", 4)
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
func overwritesWorkTree(s subject) bool {
	if s.sub != "restore" && hasOption(s.rest, "f", "bBcC", "--force", 3) || hasOption(s.rest, "", "", "--discard-changes", 3) {
		return true
	}
	if s.sub == "switch" {
		return false
	}
	if s.sub == "restore" && hasOption(s.rest, "S", "s", "--staged", 4) && !hasOption(s.rest, "W", "s", "--worktree", 3) {
		return false
	}
	for _, a := range s.rest {
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

func pushForces(s subject) bool  { return pushWhy(s.rest) == whyForcePush }
func pushDeletes(s subject) bool { return pushWhy(s.rest) == whyPushDel }

// pushWhy: --force, -f, --force-with-lease[=…], --force-if-includes and
// --mirror rewrite remote history; --delete, -d, --prune and a `:ref`
// refspec delete remote refs; a `+ref` refspec forces that ref. With
// --dry-run (-n) nothing is pushed. Options' values are skipped, so that
// `-o -n` is no dry run. The first reason found is the push's.
func pushWhy(rest []arg) string {
	found, dry := "", false
	note := func(why string) {
		if found == "" {
			found = why
		}
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		t := a.text
		switch {
		case a.lit && t == "--":
			note(refspecWhy(rest[i+1:]))
			i = len(rest)
		case strings.HasPrefix(t, "--"):
			if anyLongPrefix(t, 3, "--force", "--force-with-lease", "--force-if-includes", "--mirror") {
				note(whyForcePush)
			}
			if LongPrefix(t, "--delete", 3) || LongPrefix(t, "--prune", 4) {
				note(whyPushDel)
			}
			dry = dry || LongPrefix(t, "--dry-run", 5)
			if pushValued(t) {
				i++ // its value
			}
		case shortCluster(t):
			if clusterHas(t, "f", "o") {
				note(whyForcePush)
			}
			if clusterHas(t, "d", "o") {
				note(whyPushDel)
			}
			dry = dry || clusterHas(t, "n", "o")
			if strings.HasSuffix(t, "o") {
				i++ // -o's value
			}
		default:
			note(refspecWhy(rest[i : i+1]))
		}
	}
	if dry {
		return "" // --dry-run only says what would be pushed
	}
	return found
}

// pushValued reports a long option of git push that takes the next word
// as its value, abbreviated or not (an ambiguous abbreviation makes git
// fail, so skipping its next word cannot hide what runs).
func pushValued(t string) bool {
	return !strings.Contains(t, "=") && anyLongPrefix(t, 3, "--repo", "--receive-pack", "--exec", "--push-option")
}

func refspecWhy(specs []arg) string {
	for _, a := range specs {
		switch {
		case strings.HasPrefix(a.text, "+"):
			return whyForcePush
		case strings.HasPrefix(a.text, ":") && a.text != ":":
			return whyPushDel
		}
	}
	return ""
}

// hasOption reports an option before any "--": short in a cluster (before
// any option in valued, see clusterHas), or long, abbreviated to no fewer
// than min bytes. An empty short or long is not looked for.
func hasOption(args []arg, short, valued, long string, min int) bool {
	for _, a := range args {
		t := a.text
		if a.lit && t == "--" {
			return false
		}
		if strings.HasPrefix(t, "-") && (short != "" && clusterHas(t, short, valued) || long != "" && LongPrefix(t, long, min)) {
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
