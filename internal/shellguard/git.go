package shellguard

import "strings"

// gitRule finds git's subcommand past the global options (-C dir,
// -c key=value, --git-dir …) and applies the rule for it.
func gitRule(args []arg) rule {
	i := 1
	for i < len(args) {
		t := args[i].text
		if !args[i].lit || !strings.HasPrefix(t, "-") {
			break
		}
		if oneOf(t, "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source", "--list-cmds") {
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
		if anyOption(rest, func(t string) bool { return longPrefix(t, "--hard", 3) }) {
			return rule{category: CategoryGitReset, why: whyReset}
		}
	case "clean":
		force := anyOption(rest, func(t string) bool { return clusterHas(t, "f", "e") || longPrefix(t, "--force", 3) })
		dry := anyOption(rest, func(t string) bool { return clusterHas(t, "n", "e") || longPrefix(t, "--dry-run", 3) })
		if force && !dry {
			return rule{category: CategoryGitClean, why: whyClean}
		}
	case "push":
		if anyOption(rest, func(t string) bool { return clusterHas(t, "n", "o") || longPrefix(t, "--dry-run", 5) }) {
			return rule{} // --dry-run only says what would be pushed
		}
		return pushRule(rest)
	case "branch":
		if anyOption(rest, func(t string) bool { return clusterHas(t, "D", "ut") }) {
			return rule{category: CategoryGitBranch, why: whyBranch}
		}
		del := anyOption(rest, func(t string) bool { return clusterHas(t, "d", "ut") || longPrefix(t, "--delete", 4) })
		force := anyOption(rest, func(t string) bool { return clusterHas(t, "f", "ut") || longPrefix(t, "--force", 4) })
		if del && force {
			return rule{category: CategoryGitBranch, why: whyBranch}
		}
	}
	return rule{}
}

// pushRule: --force, -f, --force-with-lease[=…], --force-if-includes and
// --mirror rewrite remote history; --delete, -d, --prune and a `:ref`
// refspec delete remote refs; a `+ref` refspec forces that ref.
func pushRule(rest []arg) rule {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		t := a.text
		switch {
		case a.lit && t == "--":
			return refspecRule(rest[i+1:])
		case strings.HasPrefix(t, "--"):
			for _, full := range []string{"--force", "--force-with-lease", "--force-if-includes", "--mirror"} {
				if longPrefix(t, full, 3) {
					return rule{category: CategoryGitPush, why: whyForcePush}
				}
			}
			if longPrefix(t, "--delete", 3) || longPrefix(t, "--prune", 4) {
				return rule{category: CategoryGitPush, why: whyPushDel}
			}
			if !strings.Contains(t, "=") && oneOf(t, "--repo", "--receive-pack", "--exec", "--push-option") {
				i++ // its value
			}
		case shortCluster(t):
			if clusterHas(t, "f", "o") {
				return rule{category: CategoryGitPush, why: whyForcePush}
			}
			if clusterHas(t, "d", "o") {
				return rule{category: CategoryGitPush, why: whyPushDel}
			}
			if strings.HasSuffix(t, "o") {
				i++ // -o's value
			}
		default:
			if r := refspecRule(rest[i : i+1]); r.category != "" {
				return r
			}
		}
	}
	return rule{}
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
