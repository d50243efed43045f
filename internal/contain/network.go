package contain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// A command that reaches the network leaves the sandbox, whether the
// sandbox would let it (sandbox.network true) or refuse it (then asking
// first spares a run that can only fail). The tables name programs whose
// job is the network, and the subcommands of package managers and
// version control that fetch or publish. They cannot be complete: a
// program that connects on its own is still held by the sandbox, which
// refuses the connection while the network is off (Box.Holds requires
// that), and the refusal is then offered.

// networkPrograms reach the network whatever their arguments.
var networkPrograms = []string{
	"curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh", "xhs", "curlie", "lwp-request",
	"ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "lftp",
	"ping", "ping6", "dig", "nslookup", "host", "whois", "traceroute", "mosh",
	"gh", "glab", "hub", "gcloud", "aws", "az", "doctl", "flyctl", "heroku", "vercel", "netlify",
	"kubectl", "helm",
}

// networkSubcommands are the subcommands, by program, that fetch or
// publish.
var networkSubcommands = map[string][]string{
	"npm":      {"install", "i", "ci", "add", "update", "up", "upgrade", "publish", "view", "info", "outdated", "audit", "login", "exec", "x", "init", "create", "dist-tag", "search", "pack"},
	"pnpm":     {"install", "i", "add", "update", "up", "publish", "dlx", "outdated", "audit", "create", "fetch"},
	"yarn":     {"install", "add", "upgrade", "up", "publish", "dlx", "outdated", "audit", "create", "npm"},
	"bun":      {"install", "i", "add", "update", "publish", "create", "x", "outdated"},
	"npx":      nil, // every npx run may download the package
	"bunx":     nil,
	"pip":      {"install", "download", "search", "index"},
	"pip3":     {"install", "download", "search", "index"},
	"uv":       {"pip", "add", "sync", "lock", "tool", "python", "run", "venv", "init"},
	"uvx":      nil,
	"pipx":     {"install", "run", "upgrade", "upgrade-all", "inject"},
	"poetry":   {"install", "add", "update", "lock", "publish", "self"},
	"conda":    {"install", "create", "update", "upgrade", "search"},
	"cargo":    {"install", "fetch", "update", "publish", "search", "add", "login", "yank", "owner"},
	"rustup":   {"install", "update", "toolchain", "target", "component", "self"},
	"go":       {"get", "install", "mod"},
	"gem":      {"install", "update", "push", "fetch", "search"},
	"bundle":   {"install", "update", "add", "outdated"},
	"composer": {"install", "update", "require", "create-project", "outdated"},
	"mvn":      nil, // maven resolves dependencies on every goal
	"gradle":   nil,
	"docker":   {"pull", "push", "login", "build", "run", "search"},
	"podman":   {"pull", "push", "login", "build", "run", "search"},
	"apt":      {"install", "update", "upgrade", "full-upgrade", "download", "source"},
	"apt-get":  {"install", "update", "upgrade", "dist-upgrade", "download", "source"},
	"brew":     {"install", "update", "upgrade", "fetch", "tap"},
	"deno":     {"install", "add", "cache", "upgrade"},
	"dotnet":   {"restore", "add", "new", "tool", "nuget", "workload"},
}

// gitNetworkSubcommands are git's subcommands that talk to a remote.
var gitNetworkSubcommands = []string{
	"push", "fetch", "pull", "clone", "ls-remote", "submodule", "remote", "archive", "send-email", "request-pull", "svn", "p4",
}

func reachesNetwork(c shellguard.Command) string {
	name := c.Name()
	if slices.Contains(networkPrograms, name) {
		return fmt.Sprintf("%q reaches the network", c.String())
	}
	subs, ok := networkSubcommands[name]
	if !ok {
		return ""
	}
	if subs == nil {
		return fmt.Sprintf("%q may download what it runs", c.String())
	}
	if sub := firstOperand(c.Args[1:]); slices.Contains(subs, sub) {
		if name == "go" && sub == "mod" && !goModFetches(c.Args) {
			return ""
		}
		return fmt.Sprintf("%q reaches the network", c.String())
	}
	return ""
}

// goModFetches: `go mod download` and `go mod tidy` fetch; `go mod
// graph`, `why`, `edit`, `verify`, `vendor` work from the module cache
// (and fail under the sandbox if it lacks something, which is offered).
func goModFetches(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "download" || a == "tidy" || a == "init" })
}

// firstOperand is the first word that is not an option.
func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

func gitNetwork(g shellguard.GitCall) string {
	if slices.Contains(gitNetworkSubcommands, g.Subcommand) {
		if g.Subcommand == "remote" && !slices.ContainsFunc(g.Args, func(a string) bool { return a == "update" || a == "prune" || a == "show" }) {
			return ""
		}
		return fmt.Sprintf("%q reaches the network", g.Expanded.String())
	}
	return ""
}
