package plugin

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// gitDir is the directory a git call works in relative to the current
// one: its -C directories joined, "" for the current one.
func gitDir(g shellguard.GitCall) string {
	dir := ""
	for _, d := range g.Dirs {
		dir = joinDir(dir, d)
	}
	return dir
}

func joinDir(base, dir string) string {
	if base == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(base, dir)
}

// pushOperands are git push's operands (the remote, then the refspecs),
// its options skipped with their values: `-o x`, `--repo x` (an ambiguous
// abbreviation makes git fail, so skipping its value hides nothing).
func pushOperands(args []string) []string {
	_, ops := shellguard.ScanArgs(args, "o", "repo", "receive-pack", "exec", "push-option")
	return ops
}

// NoForcePush refuses force pushes: --force, -f, --force-with-lease,
// --mirror and +refspecs, however the git command is wrapped and whatever
// alias on the command line spells it (the analysis expands them).
func NoForcePush() Plugin {
	return Plugin{
		Name:        "no-force-push",
		Description: "refuses force pushes, including +refspecs",
		Appendix: "The no-force-push plugin refuses pushes that rewrite remote history (--force, -f, " +
			"--force-with-lease, --mirror, +refspecs). If one seems needed, explain why and ask the user to run it.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			// The guard's own reading of git push: one reading of which
			// pushes force, wherever the push is wrapped or aliased.
			for _, a := range c.shell() {
				for _, v := range a.Findings() {
					if v.Category == shellguard.CategoryGitPush && v.Why == shellguard.WhyForcePush {
						return shellguard.Refusal("no-force-push", v.Command, v.Why), nil
					}
				}
			}
			return "", nil
		},
	}
}

// NoGitConfig refuses git config writes to the user's global or system
// configuration, and writes at any scope to keys that set who commits or
// make git run programs.
func NoGitConfig() Plugin {
	return Plugin{
		Name:        "no-git-config",
		Description: "refuses git config --global/--system and identity or program-running keys",
		Appendix: "The no-git-config plugin refuses `git config` writes with --global or --system, and writes to " +
			"identity and program-running keys (user.*, author.*, committer.*, gpg.*, core.*, include.*, credential.*, " +
			"alias.*, filter.*) at any scope. Reading configuration is fine. Ask the user to change git settings.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, a := range c.shell() {
				for _, g := range a.Git() {
					if g.Subcommand != "config" {
						continue
					}
					if why := gitConfigWrite(g.Args); why != "" {
						return shellguard.Refusal("no-git-config", g.Command.String(), why), nil
					}
				}
			}
			return "", nil
		},
	}
}

// gitConfigWrite says why a git config invocation is refused, or "". It
// reads both forms: `git config [--global] key value` and the subcommand
// form `git config set [--global] key value` of newer gits.
func gitConfigWrite(args []string) string {
	scope := ""
	write := false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "--global" || a == "--system":
			scope = a
		case slices.Contains([]string{"--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section", "--edit", "-e"}, a):
			write = true
		case slices.Contains([]string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool"}, a):
			return "" // a read
		case a == "-f" || slices.Contains([]string{"--file", "--blob", "--type", "--default", "--comment", "--value"}, a):
			i++ // the option's value
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 0 {
		switch ops[0] {
		case "set", "unset", "rename-section", "remove-section", "edit":
			write, ops = true, ops[1:]
		case "get", "list", "get-color", "get-colorbool":
			return ""
		}
	}
	if len(ops) >= 2 {
		write = true // key value
	}
	if !write {
		return ""
	}
	if scope != "" {
		return "changes the " + strings.TrimPrefix(scope, "--") + " git configuration, outside this project"
	}
	if len(ops) > 0 && sensitiveGitKey(ops[0]) {
		return "sets " + ops[0] + ", which decides who commits or which programs git runs"
	}
	return ""
}

func sensitiveGitKey(key string) bool {
	key = strings.ToLower(key)
	for _, section := range []string{"user.", "author.", "committer.", "gpg.", "core.", "include.", "includeif.", "credential.", "alias.", "filter."} {
		if strings.HasPrefix(key, section) {
			return true
		}
	}
	return key == "commit.gpgsign" || key == "tag.gpgsign"
}

// branchTimeout bounds the git call that reads the current branch.
const branchTimeout = 5 * time.Second

// NoMainCommit refuses commits, merges, cherry-picks, reverts and am on
// main or master, and pushes to them. The current branch comes from
// `git symbolic-ref --quiet --short HEAD` run with fixed arguments in the
// call's directory (or its -C / cd directory). symbolic-ref rather than
// rev-parse --abbrev-ref because it names the branch of a fresh repository
// that has no commit yet, where the first commit lands. A branch switched
// earlier in the same line (`git switch -c x && git commit`) is followed.
// When the branch cannot be read (no repository, detached HEAD), the
// command is let through: git itself will refuse to commit without a
// repository, and a detached HEAD is not main. git reads the config and
// runs the fsmonitor of the repository it is pointed at, so run must
// contain it (Contained); a nil run refuses to run git, and the branch then
// counts as unknown.
func NoMainCommit(run Runner) Plugin {
	if run == nil {
		run = refuseRunner
	}
	return Plugin{
		Name:        "no-main-commit",
		Description: "refuses commits and merges on main or master, and pushes to them",
		Appendix: "The no-main-commit plugin refuses git commit, merge, cherry-pick, revert and am while main or " +
			"master is checked out, and pushes to main or master. Create a branch first (`git switch -c <name>`); " +
			"ask the user before anything lands on main.",
		BeforeToolCall: func(ctx context.Context, c Call) (string, error) {
			for _, a := range c.shell() {
				b := branches{ctx: ctx, run: run, known: map[string]string{}}
				dir, dirKnown := c.Cwd, true
				for i, cmd := range effective(a) {
					if cmd.Name() == "cd" {
						dir, dirKnown = cdTarget(dir, cmd.Args[1:])
						continue
					}
					g, ok := a.GitAt(i)
					if !ok || !dirKnown && !filepath.IsAbs(gitDir(g)) {
						continue
					}
					if why := b.mainCommit(joinDir(dir, gitDir(g)), g); why != "" {
						return shellguard.Refusal("no-main-commit", cmd.String(), why), nil
					}
				}
			}
			return "", nil
		},
	}
}

// cdTarget follows `cd dir`; known is false when the target cannot be
// told (no operand, "-", an expansion), and git commands after it are let
// through unless they name their directory with an absolute -C.
func cdTarget(dir string, args []string) (string, bool) {
	_, ops := shellguard.ScanArgs(args, "")
	if len(ops) != 1 || ops[0] == "-" || strings.ContainsAny(ops[0], "$`~") {
		return "", false
	}
	return joinDir(dir, ops[0]), true
}

// branches knows the current branch of each directory of one command line.
type branches struct {
	ctx   context.Context
	run   Runner
	known map[string]string
}

func (b *branches) current(dir string) string {
	if br, ok := b.known[dir]; ok {
		return br
	}
	ctx, cancel := context.WithTimeout(b.ctx, branchTimeout)
	defer cancel()
	br := ""
	if out, err := b.run(ctx, dir, "git", "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		br = strings.TrimSpace(string(out))
	}
	b.known[dir] = br
	return br
}

func protectedBranch(name string) bool {
	name = strings.TrimPrefix(name, "refs/heads/")
	return name == "main" || name == "master"
}

func (b *branches) mainCommit(dir string, g shellguard.GitCall) string {
	switch g.Subcommand {
	case "checkout", "switch":
		if br, ok := switchedBranch(g.Args); ok {
			b.known[dir] = br
		}
	case "init":
		opts, _ := shellguard.ScanArgs(g.Args, "b", "initial-branch", "template", "separate-git-dir", "object-format", "ref-format", "shared")
		br := "master"
		if v := optionValues(opts, "b", "initial-branch"); len(v) > 0 {
			br = v[len(v)-1]
		}
		b.known[dir] = br
	case "commit", "merge", "cherry-pick", "revert", "am":
		for _, a := range g.Args {
			if a == "--abort" || a == "--quit" || a == "--skip" || a == "--dry-run" {
				return ""
			}
		}
		if br := b.current(dir); protectedBranch(br) {
			return "git " + g.Subcommand + " on " + br + "; create a branch first"
		}
	case "push":
		return b.pushToMain(dir, g.Args)
	}
	return ""
}

func (b *branches) pushToMain(dir string, args []string) string {
	for _, a := range args {
		if a == "--all" || a == "--branches" || shellguard.LongPrefix(a, "--mirror", 4) {
			return "pushes every branch, main included"
		}
		if a == "--tags" || a == "--delete" || a == "-d" {
			return "" // tags only, or a deletion (the guard's concern)
		}
	}
	ops := pushOperands(args)
	if len(ops) <= 1 {
		if br := b.current(dir); protectedBranch(br) {
			return "pushes " + br + ", the current branch"
		}
		return ""
	}
	for _, spec := range ops[1:] {
		dst := strings.TrimPrefix(spec, "+")
		if i := strings.LastIndexByte(dst, ':'); i >= 0 {
			dst = dst[i+1:]
		}
		if dst == "HEAD" || dst == "@" {
			dst = b.current(dir)
		}
		if protectedBranch(dst) {
			return "pushes to " + strings.TrimPrefix(dst, "refs/heads/")
		}
	}
	return ""
}

// switchedBranch reads the branch a checkout or switch moves to. ok is
// false when it restores files instead (`git checkout -- a.go`).
func switchedBranch(args []string) (string, bool) {
	if slices.Contains(args, "--") {
		return "", false
	}
	opts, ops := shellguard.ScanArgs(args, "bBcC", "orphan", "create", "force-create", "conflict")
	if v := optionValues(opts, "b", "B", "c", "C", "orphan", "create", "force-create"); len(v) > 0 {
		return v[len(v)-1], true
	}
	if _, detach := opts["detach"]; detach {
		return "", true
	}
	if len(ops) == 0 {
		return "", false
	}
	if ops[0] == "-" {
		return "", true // the previous branch: unknown here
	}
	return ops[0], true
}
