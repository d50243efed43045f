package permission

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// Grant is an `always` answer: for the rest of the session, calls of Tool
// whose subject matches Pattern are allowed where the rules would ask.
type Grant struct {
	Tool    string
	Pattern string
	// Exact grants match the command or subject literally: `*` and `?` in
	// it are plain characters. Used for commands that run other commands
	// (sudo, xargs, sh -c), where a wildcard would grant far more than was
	// shown.
	Exact bool
}

// String renders the grant for the prompt's footer and /permissions:
// `bash "git status *"`, or `bash exactly "sudo make install"`.
func (g Grant) String() string {
	if g.Exact {
		return fmt.Sprintf("%s exactly %q", g.Tool, g.Pattern)
	}
	return fmt.Sprintf("%s %q", g.Tool, g.Pattern)
}

// Grants holds a session's grants. They live in memory only and are never
// written to disk. The zero value is empty and ready; it is safe for
// concurrent use (subagents share their parent's grants). A nil *Grants
// holds nothing.
type Grants struct {
	mu   sync.RWMutex
	list []Grant
}

// Add records grants, ignoring ones already held.
func (g *Grants) Add(grants ...Grant) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, gr := range grants {
		if !slices.Contains(g.list, gr) {
			g.list = append(g.list, gr)
		}
	}
}

// List returns the grants in the order they were made.
func (g *Grants) List() []Grant {
	if g == nil {
		return nil
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return slices.Clone(g.list)
}

// matches reports whether the grant covers one unit: a call with no subject
// only by a `*` grant, an exact grant only by equal text, a bash command
// with the same " *" stem rule as the rules.
func (g Grant) matches(u *unit, shell bool) bool {
	switch {
	case u.none:
		return !g.Exact && catchAll(g.Pattern)
	case g.Exact:
		return g.Pattern == u.text
	case shell:
		return matchCommand(g.Pattern, u.text)
	}
	return Match(g.Pattern, u.text)
}

// GrantFor returns what `always` would grant for a call the rules ask
// about: for bash, one grant per simple command that is asked (see
// commandGrant); for any other tool, `*`. It returns nil when a grant
// could not help: the call is denied or already allowed, the command line
// does not parse, or every ask comes from a redirection or a variable
// assignment that only a catch-all rule covers. The prompt shows the
// result in its footer; on `a` the front end passes it to Grants.Add.
func (r *Rules) GrantFor(q Query, grants *Grants) []Grant {
	ev := r.evaluate(q, grants)
	if ev.result().Decision != Ask || ev.unparsed {
		return nil
	}
	var out []Grant
	for i, v := range ev.verdicts {
		if v.decision != Ask || (v.cause != CauseNone && v.cause != CauseNoMatch && v.cause != CauseRunsCode) {
			continue
		}
		u := ev.units[i]
		if !q.IsShell || u.none {
			return []Grant{{Tool: q.Tool, Pattern: "*"}}
		}
		if ev.hazard(u.line) != CauseNone {
			continue // a command grant would not cover it; see applyGrants
		}
		if gr := commandGrant(q.Tool, u.cmd); !slices.Contains(out, gr) {
			out = append(out, gr)
		}
	}
	return out
}

// commandGrant is the grant for one simple command: the program and ` *`
// (`ls -la` grants `ls *`); for a program whose first argument picks a
// subcommand, the program, the subcommand and ` *` (`git status -s` grants
// `git status *`, which never covers `git push`). A command that runs
// other commands, one whose words are not plain literals, or one whose
// subcommand slot holds an option (`git -C dir push`) is granted exactly
// as it stands; so is one that runs other code besides its program
// (Command.RunsCode: `git -c core.pager=… log`).
func commandGrant(tool string, c shellguard.Command) Grant {
	exact := Grant{Tool: tool, Pattern: c.String(), Exact: true}
	if !c.Literal || len(c.Args) == 0 || c.RunsCode != "" {
		return exact
	}
	program := c.Args[0]
	// Lower case: on a case-insensitive file system `SUDO` runs sudo.
	name := strings.ToLower(path.Base(program))
	if runsCommands(name) || hasWildcard(program) {
		return exact
	}
	if !hasSubcommands(name) {
		return Grant{Tool: tool, Pattern: program + " *"}
	}
	if len(c.Args) < 2 {
		return exact
	}
	sub := c.Args[1]
	if sub == "" || strings.HasPrefix(sub, "-") || hasWildcard(sub) || strings.ContainsAny(sub, " \t\n") {
		return exact
	}
	return Grant{Tool: tool, Pattern: program + " " + sub + " *"}
}

// hasSubcommands lists programs whose first argument selects what they do,
// so that granting the whole program would grant far more than was asked
// (`git status` versus `git push`).
func hasSubcommands(program string) bool {
	switch program {
	case "git", "gh", "go",
		"npm", "npx", "pnpm", "yarn", "bun", "bunx", "deno",
		"node", "python", "python3", "ruby", "perl", // the script is the "subcommand"
		"cargo", "rustup",
		"pip", "pip3", "uv", "poetry", "conda",
		"docker", "podman", "kubectl", "helm", "terraform",
		"make", "mvn", "gradle", "dotnet", "composer", "bundle",
		"apt", "apt-get", "brew", "systemctl":
		return true
	}
	return false
}

// runsCommands lists programs whose arguments are themselves a command to
// run (or, for find, may contain one in -exec): `sudo *` would grant every
// command there is.
func runsCommands(program string) bool {
	switch program {
	case "sudo", "doas", "su", "env", "xargs", "eval", "exec", "command", "builtin",
		"nohup", "nice", "ionice", "time", "timeout", "watch", "stdbuf", "setsid",
		"chroot", "unshare", "nsenter", "flock", "ssh",
		"sh", "bash", "zsh", "dash", "ksh", "fish",
		"find":
		return true
	}
	return false
}
