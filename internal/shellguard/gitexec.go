package shellguard

import (
	"strings"
)

// gitRuns checks what a git command runs besides git: the shell scripts
// of the aliases the line defines, settings that name programs
// (`-c core.pager=…`, `-c core.fsmonitor=…`, credential helpers, diff
// drivers), a directory of git commands (--exec-path), a subcommand
// decided at run time or mistyped into a dangerous one, and the
// subcommands' own options that run commands (difftool -x, rebase --exec,
// submodule foreach, bisect run…). It returns why the command runs code.
func (a *engine) gitRuns(sc *scope, g *gitInvocation, callIndex int, via []string, at string) string {
	// Aliases defined on the line are not reported here: the permission
	// rules judge what each one runs (Analysis.Git).
	why := ""
	a.gitScripts(sc, g, callIndex, via, at)
	if g.unresolved != "" {
		a.opaque(at, g.unresolved)
	} else if g.subDynamic {
		a.opaque(at, "the git subcommand is decided at run time")
		why = "runs a git subcommand decided at run time"
	}
	if g.execPath {
		a.opaque(at, "git runs its commands from a directory the line chooses (--exec-path)")
		why = "runs git commands from a directory the line chooses"
	}
	for i, w := range g.globals {
		if w.lit && w.text == "-C" && i+1 < len(g.globals) && leavesWorkspace(g.globals[i+1]) {
			// The same holds for a repository outside the workspace, or one
			// the line decides at run time.
			why = "uses the configuration and hooks of a repository outside the workspace (-C)"
		}
		if w.lit && (w.text == "--git-dir" || strings.HasPrefix(w.text, "--git-dir=")) {
			// Another repository's configuration may name a pager, an
			// fsmonitor or hooks: nothing the guard sees, but not what an
			// allow rule for git was written for.
			why = "uses the configuration and hooks of a repository the line chooses (--git-dir)"
		}
	}
	for _, s := range g.settings {
		if w := a.gitSetting(sc, s, via, at); w != "" {
			why = w
		}
	}
	if len(g.words) == 0 || !g.words[0].lit {
		return why
	}
	sub, args := g.words[0].text, g.words[1:]
	if g.alias == "" && !isGitCommand(sub) {
		a.gitTypo(sc, sub, args, at)
	}
	n := gitSubcommandRuns(sub, args)
	if n.opaque != "" {
		a.opaque(at, n.opaque)
	}
	for _, e := range n.execs {
		a.command(sc, e, via, at, nil, 1)
	}
	for _, s := range n.scripts {
		a.runScriptFed(sc, s, via, at, nil)
	}
	if w := n.reason(); w != "" {
		why = w
	}
	if sub == "config" {
		if w := a.gitConfigWrite(sc, args, via, at); w != "" {
			why = w
		}
	}
	return why
}

// safeGitKeys are the settings whose value git never runs or loads: who
// commits, colours, advice, defaults for output.
func safeGitKeys() []string {
	return []string{"user.", "author.", "committer.", "color.", "advice.", "init.defaultbranch",
		"safe.directory", "core.quotepath", "core.autocrlf", "core.safecrlf", "core.abbrev", "core.filemode",
		"core.ignorecase", "core.longpaths", "core.precomposeunicode", "log.", "format.pretty", "i18n.", "column.",
		"commit.gpgsign", "tag.gpgsign", "push.default", "push.autosetupremote", "pull.rebase", "pull.ff",
		"merge.conflictstyle", "merge.ff", "rebase.autosquash", "rebase.autostash", "fetch.prune", "diff.noprefix",
		"diff.renames", "diff.algorithm", "diff.mnemonicprefix", "diff.colormoved", "status.", "branch.sort",
		"tag.sort", "protocol.version", "http.sslverify", "http.postbuffer", "feature.", "maintenance.auto",
		"gc.auto"}
}

func safeGitKey(key string) bool {
	for _, k := range safeGitKeys() {
		if strings.HasSuffix(k, ".") && strings.HasPrefix(key, k) || key == k {
			return true
		}
	}
	return false
}

// gitSetting judges one -c setting. A value git may run is checked as the
// shell script git would run (a leading `!` is git's mark for one); a
// value decided at run time, or read from the environment or a file,
// cannot be checked.
func (a *engine) gitSetting(sc *scope, s gitSetting, via []string, at string) string {
	if safeGitKey(s.key) {
		return ""
	}
	switch {
	case strings.Contains(s.key, "ext::") || strings.Contains(s.value.text, "ext::") || s.key == "protocol.ext.allow" || s.key == "protocol.allow":
		a.opaque(at, "lets git run commands from ext:: URLs ("+s.key+")")
	case s.key == "include.path" || strings.HasPrefix(s.key, "includeif.") && strings.HasSuffix(s.key, ".path"):
		a.opaque(at, "loads git configuration from a file ("+s.key+")")
	case s.fromEnv:
		a.opaque(at, "reads git setting "+s.key+" from the environment, where it may name a program")
	case !s.value.lit:
		a.opaque(at, "git setting "+s.key+" is decided at run time and may name a program")
	case s.key == "help.autocorrect":
		return "" // judged where the subcommand is read (gitTypo)
	default:
		script := strings.TrimPrefix(strings.TrimSpace(s.value.text), "!")
		if script == "" || oneOf(strings.ToLower(script), "true", "false", "yes", "no", "on", "off", "0", "1") {
			return ""
		}
		a.runScript(sc, []arg{literalArg(script)}, append(via[:len(via):len(via)], "git -c "+s.key), at)
	}
	return "sets git configuration (" + s.key + ") that can run programs"
}

// gitConfigWrite judges `git config KEY VALUE` for a key whose value git
// runs later (core.pager, alias.x…): the value is checked now, as the
// script or git command it will be.
func (a *engine) gitConfigWrite(sc *scope, args []arg, via []string, at string) string {
	_, ops := scanOptions(args, optSpec{value: "f", long: []string{"file", "blob", "type", "default", "comment", "value"}, permute: true})
	if len(ops) > 0 && ops[0].lit && oneOf(ops[0].text, "set", "add") {
		ops = ops[1:]
	}
	if len(ops) < 2 || !ops[0].lit {
		return ""
	}
	key := strings.ToLower(ops[0].text)
	value := ops[len(ops)-1]
	if alias, ok := strings.CutPrefix(key, "alias."); ok && alias != "" && value.lit && !strings.HasPrefix(value.text, "!") {
		words := append([]arg{literalArg("git")}, a.splitWords(sc, value)...)
		if r := a.rule(sc, "git", words, nil); r.category != "" {
			a.report(Verdict{Command: at, Category: r.category, Why: r.why + " (through the git alias it defines)"}, false)
		}
		return ""
	}
	return a.gitSetting(sc, gitSetting{key: key, value: value}, via, at)
}

// gitTypo judges a subcommand git does not know as the dangerous ones it
// is close to: git's help.autocorrect (which a user's configuration may
// turn on) runs `git rset --hard` as `git reset --hard`.
func (a *engine) gitTypo(sc *scope, sub string, args []arg, at string) {
	for _, d := range []string{"reset", "clean", "push", "branch", "checkout", "restore", "stash"} {
		if editDistance(strings.ToLower(sub), d) > 2 {
			continue
		}
		words := append([]arg{literalArg("git"), literalArg(d)}, args...)
		if r := a.rule(sc, "git", words, nil); r.category != "" {
			a.report(Verdict{Command: at, Category: r.category, Why: r.why + " (git may correct " + sub + " to " + d + ")"}, false)
			return
		}
	}
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func editDistance(s, t string) int {
	if len(s) > 32 || len(t) > 32 {
		return 99
	}
	var d [33][33]int
	for i := 0; i <= len(s); i++ {
		d[i][0] = i
	}
	for j := 0; j <= len(t); j++ {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}

// gitSubcommandRuns returns what a git subcommand's own options run.
func gitSubcommandRuns(sub string, args []arg) next {
	var n next
	for _, w := range args {
		if w.lit && strings.HasPrefix(w.text, "ext::") || !w.lit && strings.Contains(w.text, "ext::") {
			n.opaque = "a git ext:: URL runs a command"
		}
	}
	switch sub {
	case "difftool", "mergetool":
		n.scripts = append(n.scripts, gitOptionValues(args, "x", "extcmd")...)
	case "rebase":
		n.scripts = append(n.scripts, gitOptionValues(args, "x", "exec")...)
	case "submodule":
		_, ops := scanOptions(args, optSpec{})
		if len(ops) > 0 && ops[0].text == "foreach" {
			_, cmd := scanOptions(ops[1:], optSpec{})
			if len(cmd) > 0 {
				n.scripts = append(n.scripts, cmd)
			}
		}
	case "bisect":
		if len(args) > 0 && args[0].lit && args[0].text == "run" && len(args) > 1 {
			n.execs = append(n.execs, args[1:])
		}
	case "filter-branch":
		n.scripts = append(n.scripts, gitOptionValues(args, "", "env-filter", "tree-filter", "index-filter",
			"parent-filter", "msg-filter", "commit-filter", "tag-name-filter", "setup")...)
	case "send-email":
		n.scripts = append(n.scripts, gitOptionValues(args, "", "to-cmd", "cc-cmd", "header-cmd", "sendmail-cmd")...)
		for _, v := range gitOptionValues(args, "", "smtp-server") {
			if strings.HasPrefix(v[0].text, "/") || !v[0].lit {
				n.execs = append(n.execs, v)
			}
		}
	case "fetch", "pull", "clone", "ls-remote", "push", "archive", "remote":
		short := ""
		if sub == "clone" {
			short = "u"
		}
		n.scripts = append(n.scripts, gitOptionValues(args, short, "upload-pack", "receive-pack", "exec")...)
	case "grep":
		for _, w := range args {
			if v, ok := strings.CutPrefix(w.text, "--open-files-in-pager="); ok {
				n.scripts = append(n.scripts, []arg{{text: v, src: v, lit: w.lit}})
			} else if strings.HasPrefix(w.text, "-O") && len(w.text) > 2 {
				n.scripts = append(n.scripts, []arg{{text: w.text[2:], src: w.text[2:], lit: w.lit}})
			}
		}
	case "instaweb":
		n.scripts = append(n.scripts, gitOptionValues(args, "", "httpd", "browser")...)
	}
	return n
}

// gitOptionValues returns the values of git options that take one: the
// short option's (-x CMD, -xCMD) and the long ones' (--exec CMD,
// --exec=CMD), each as a one-word script.
func gitOptionValues(args []arg, short string, long ...string) [][]arg {
	var out [][]arg
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		if t == "--" && w.lit {
			break
		}
		var value string
		var attached bool
		switch {
		case strings.HasPrefix(t, "--"):
			var name string
			name, value, attached = strings.Cut(t[2:], "=")
			if !oneOf(name, long...) {
				continue
			}
		case short != "" && strings.HasPrefix(t, "-"+short):
			value, attached = t[2:], len(t) > 2
		default:
			continue
		}
		if attached {
			out = append(out, []arg{{text: value, src: value, lit: w.lit}})
		} else if i+1 < len(args) {
			i++
			out = append(out, []arg{args[i]})
		}
	}
	return out
}

// isGitCommand reports git's own commands (porcelain and plumbing), and
// the common extensions.
func isGitCommand(sub string) bool {
	switch sub {
	case "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle",
		"cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout",
		"checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph",
		"commit-tree", "config", "count-objects", "credential", "credential-cache", "credential-store", "describe",
		"diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import",
		"fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch",
		"fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "gui", "hash-object",
		"help", "hook", "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init", "init-db",
		"instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit",
		"maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-one-file", "merge-tree",
		"mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects",
		"pack-redundant", "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "quiltimport",
		"range-diff", "read-tree", "rebase", "receive-pack", "reflog", "refs", "remote", "repack", "replace",
		"replay", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "scalar",
		"send-email", "send-pack", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout",
		"stage", "stash", "status", "stripspace", "submodule", "svn", "switch", "symbolic-ref", "tag",
		"unpack-file", "unpack-objects", "update-index", "update-ref", "update-server-info", "upload-archive",
		"upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree",
		"write-tree", "lfs", "flow":
		return true
	}
	return false
}

// leavesWorkspace reports whether a directory word may lead out of the
// working directory: decided at run time, absolute, from a home directory,
// or climbing with "..".
func leavesWorkspace(dir arg) bool {
	if !dir.lit {
		return true
	}
	d := dir.value()
	if strings.HasPrefix(d, "/") || strings.HasPrefix(d, "~") {
		return true
	}
	for _, part := range strings.Split(d, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}
