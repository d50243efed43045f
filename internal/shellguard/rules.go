package shellguard

import (
	"path"
	"strings"
)

// The categories of Verdict.Category. Every rule belongs to one, so a
// plugin can act on part of the guard (no-force-push on CategoryGitPush,
// no-net-pipe on CategoryPipeShell) through Analysis.Findings.
const (
	CategoryRm        = "rm"         // recursive or forced delete, find -delete
	CategoryGitReset  = "git-reset"  // git reset --hard
	CategoryGitClean  = "git-clean"  // git clean -f
	CategoryGitPush   = "git-push"   // force pushes and remote deletes
	CategoryGitBranch = "git-branch" // git branch -D
	CategorySQL       = "sql"        // DROP / TRUNCATE through a database client
	CategoryDisk      = "disk"       // mkfs, wipefs, dd of=/dev/…, > /dev/sda
	CategoryChmod     = "chmod"      // world-writable modes
	CategoryPower     = "power"      // shutdown, reboot, halt…
	CategoryForkBomb  = "forkbomb"   // a function that pipes or backgrounds itself
	CategoryPipeShell = "pipe-shell" // a download run by a shell or interpreter
	CategoryOpaque    = "opaque"     // cannot be analysed: unparsable, or decided at run time
)

// The reasons shown in refusals, in the words of the plugin guide.
const (
	whyRm        = "recursive or forced delete"
	whyFindDel   = "deletes every file find matches"
	whyReset     = "discards uncommitted work"
	whyClean     = "deletes untracked files"
	whyForcePush = "rewrites remote history"
	whyPushDel   = "deletes remote branches"
	whyBranch    = "deletes a branch without a merge check"
	whySQL       = "destroys database data"
	whyDisk      = "writes to a raw device"
	whyChmod     = "makes files world-writable"
	whyPower     = "affects the whole machine"
)

// WhyForcePush is the reason of the CategoryGitPush findings that force a
// push (--force, --mirror, +refspecs) rather than delete remote branches:
// those the no-force-push plugin refuses.
const WhyForcePush = whyForcePush

// rule is the verdict of one program's own rule; the zero rule is none.
type rule struct {
	category, why string
	fromInput     bool // the danger arrived on standard input: show the pipeline
}

// ruleFor applies the per-program rules to an effective command. in is
// what feeds its standard input, or nil.
func ruleFor(base string, args []arg, in *input) rule {
	switch {
	case base == "rm":
		if rmForcedOrRecursive(args) {
			return rule{category: CategoryRm, why: whyRm}
		}
	case base == "find":
		for _, a := range args[1:] {
			if a.lit && a.text == "-delete" {
				return rule{category: CategoryRm, why: whyFindDel}
			}
		}
	case base == "git":
		return gitRule(args)
	case isDatabaseClient(base):
		if in != nil && (in.sql || sqlFor(base, in.text) || isRedis(base) && redisScriptFlushes(in.text)) {
			return rule{category: CategorySQL, why: whySQL, fromInput: true}
		}
		if destroysData(base, args) {
			return rule{category: CategorySQL, why: whySQL}
		}
	case strings.HasPrefix(base, "mkfs") || strings.HasPrefix(base, "newfs"):
		return rule{category: CategoryDisk, why: whyDisk}
	case oneOf(base, "mke2fs", "mkswap", "wipefs", "blkdiscard", "mkdosfs", "mkntfs"):
		return rule{category: CategoryDisk, why: whyDisk}
	case base == "dd":
		// Also a write access (see accessRecorder.add); the rule is what
		// judges the values a variable may hold (`dd $target`).
		for _, a := range args[1:] {
			if target, ok := strings.CutPrefix(a.text, "of="); ok && isRawDevice(target) {
				return rule{category: CategoryDisk, why: whyDisk}
			}
		}
	case base == "chmod":
		if chmodWorldWritable(args[1:]) {
			return rule{category: CategoryChmod, why: whyChmod}
		}
	case base == "mkdir" || base == "install":
		opts, _ := scanOptions(args[1:], optSpec{value: "mgotSZ", long: []string{"mode", "group", "owner", "target-directory", "suffix", "context"}, permute: true})
		if mode, ok := valueOf(opts, "m", "mode"); ok && chmodWorldWritable([]arg{mode}) {
			return rule{category: CategoryChmod, why: whyChmod}
		}
	case oneOf(base, "shutdown", "reboot", "halt", "poweroff"):
		return rule{category: CategoryPower, why: whyPower}
	case base == "systemctl" || base == "loginctl":
		if powerVerb(args[1:]) {
			return rule{category: CategoryPower, why: whyPower}
		}
	case base == "init" || base == "telinit":
		if _, ops := scanOptions(args[1:], optSpec{}); len(ops) > 0 && oneOf(ops[0].text, "0", "6") {
			return rule{category: CategoryPower, why: whyPower}
		}
	}
	return rule{}
}

// rmForcedOrRecursive: any -r, -R or -f in any short cluster, a long
// --recursive, --force or --no-preserve-root (getopt accepts `--rec`), or
// an option spelled with an expansion (`-$x`), which may be any of those.
func rmForcedOrRecursive(args []arg) bool {
	for _, a := range args[1:] {
		t := a.text
		if a.lit && t == "--" {
			return false
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			continue
		}
		if !a.lit {
			return true
		}
		if shortCluster(t) && strings.ContainsAny(t[1:], "rRf") {
			return true
		}
		if LongPrefix(t, "--recursive", 3) || LongPrefix(t, "--force", 3) || LongPrefix(t, "--no-preserve-root", 3) {
			return true
		}
	}
	return false
}

// isRawDevice reports a path under /dev that is not one of the harmless
// pseudo-devices (null, the standard streams, ttys, shared memory). The
// path is cleaned first, so that //dev/sda, /dev/./sda and /dev/fd/../sda
// are /dev/sda.
func isRawDevice(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	rest, ok := strings.CutPrefix(path.Clean(p), "/dev/")
	if !ok || rest == "" {
		return false
	}
	if oneOf(rest, "null", "zero", "full", "random", "urandom", "stdout", "stderr", "stdin", "tty", "console") {
		return false
	}
	for _, dir := range []string{"fd/", "pts/", "shm/", "mqueue/", "tcp/", "udp/"} {
		if strings.HasPrefix(rest, dir) {
			return false
		}
	}
	return true
}

// chmodWorldWritable reports a chmod whose mode leaves others with write
// permission: an octal mode whose last digit has the write bit (777,
// 0666, 1777, 752), or symbolic clauses that, read in order, end with
// others given write (a+w, o=rwx, ugo+rwx, o=u; not a=rw,o-w). `+w`
// without a who is filtered by the umask and passes, as does `chmod +x`.
// The mode is chmod's first operand (one starting with '-' when it is a
// mode, as in `chmod -w,o+w f`); with --reference there is none.
func chmodWorldWritable(args []arg) bool {
	for i, a := range args {
		t := a.text
		switch {
		case t == "--":
			return i+1 < len(args) && modeWorldWritable(args[i+1].text)
		case strings.HasPrefix(t, "--reference"):
			return false
		case strings.HasPrefix(t, "--"):
			continue
		case strings.HasPrefix(t, "-") && !symbolicMode(t):
			continue // -R, -c, -f, -v
		}
		return modeWorldWritable(t)
	}
	return false
}

func modeWorldWritable(t string) bool { return octalWorldWritable(t) || symbolicWorldWritable(t) }

// octalWorldWritable reads an octal mode; chmod takes any number of leading
// zeros (000777 is 777), so they are dropped before the mode is judged.
func octalWorldWritable(t string) bool {
	if len(t) == 0 {
		return false
	}
	if t = strings.TrimLeft(t, "0"); t == "" || len(t) > 4 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '7' {
			return false
		}
	}
	return (t[len(t)-1]-'0')&2 != 0
}

// symbolicMode reports a comma-separated list of [ugoa]*([-+=](perms|[ugo]))+
// clauses.
func symbolicMode(t string) bool {
	_, ok := othersWritable(t)
	return ok
}

func symbolicWorldWritable(t string) bool {
	w, ok := othersWritable(t)
	return ok && w
}

// othersWritable reads a symbolic mode clause by clause and says whether
// others end up with write permission; ok is false when t is not a mode.
// Copying another class's bits (o=u) counts as write, since it usually is.
func othersWritable(t string) (writable, ok bool) {
	if t == "" {
		return false, false
	}
	for clause := range strings.SplitSeq(t, ",") {
		i := 0
		others, all := false, false
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			others = others || clause[i] == 'o' || clause[i] == 'a'
			i++
		}
		if i == 0 {
			all = true // no who: every class, through the umask
		}
		if i == len(clause) {
			return false, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return false, false
			}
			i++
			start := i
			for i < len(clause) && strings.IndexByte("rwxXstugo", clause[i]) >= 0 {
				i++
			}
			perms := clause[start:i]
			write := strings.IndexByte(perms, 'w') >= 0
			copies := strings.ContainsAny(perms, "ug")
			switch {
			case op == '-' && write && (others || all):
				writable = false
			case op == '=' && others:
				writable = write || copies
			case op == '=' && all:
				writable = false // the umask keeps others from write
			case op == '+' && others && (write || copies):
				writable = true
			}
		}
	}
	return writable, true
}

// powerVerb reports a systemctl or loginctl verb that stops, restarts or
// suspends the machine.
func powerVerb(args []arg) bool {
	_, ops := scanOptions(args, optSpec{
		value: "tpsHMnoP",
		long: []string{"type", "property", "signal", "host", "machine", "lines", "output", "kill-whom", "kill-value",
			"job-mode", "root", "image", "preset-mode", "boot-loader-menu", "boot-loader-entry", "reboot-argument",
			"what", "timestamp", "drop-in", "when", "state", "message", "image-policy", "check-inhibitors"},
		permute: true,
	})
	return len(ops) > 0 && oneOf(ops[0].text, "reboot", "poweroff", "halt", "kexec", "soft-reboot", "emergency",
		"rescue", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep")
}

// isDatabaseClient reports programs that run SQL (or a database's own
// destructive commands) given on the command line or standard input.
func isDatabaseClient(base string) bool {
	switch base {
	case "psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "osql", "isql", "cockroach", "clickhouse",
		"clickhouse-client", "duckdb", "mysqlsh", "usql", "pgcli", "mycli", "litecli", "cqlsh", "sqlplus",
		"snowsql", "trino", "presto", "bq", "db2", "sqlline", "spanner-cli",
		"redis-cli", "valkey-cli", "keydb-cli", "mongo", "mongosh", "dropdb", "mysqladmin":
		return true
	}
	return false
}

// destroysData looks for destructive statements in a database client's
// words.
func destroysData(base string, args []arg) bool {
	switch base {
	case "dropdb":
		return true
	case "mysqladmin":
		for _, a := range args[1:] {
			if strings.EqualFold(a.text, "drop") {
				return true
			}
		}
		return false
	case "redis-cli", "valkey-cli", "keydb-cli":
		return redisFlushes(args[1:])
	case "mongo", "mongosh":
		for _, a := range args[1:] {
			if strings.Contains(a.text, "dropDatabase") || strings.Contains(a.text, ".drop(") {
				return true
			}
		}
	}
	for _, a := range args[1:] {
		if sqlFor(base, a.text) {
			return true
		}
	}
	return false
}
