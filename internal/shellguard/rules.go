package shellguard

import (
	"path"
	"strings"
	"sync"
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

// row is one line of the plugin document's table (docs/plugins.md, "Rule |
// Refused | Passes"), as it applies to one effective command: the programs
// it is about (a trailing * stands for any suffix: mkfs.ext4), for git the
// subcommands, the condition on the command's words (nil: the program
// alone is refused) and the refusal. The fork bomb, a download piped into
// a shell and a write to a device by redirection are about the line's
// structure, not one command: the analysis finds those (checks.go,
// pipeline.go, access.go).
type row struct {
	programs, subs []string
	when           func(subject) bool
	category, why  string
	fromInput      bool
}

// subject is what a row's condition reads.
type subject struct {
	base    string
	args    []arg  // args[0] is the program
	in      *input // what feeds its standard input, or nil
	sub     string // git's subcommand, past its global options
	rest    []arg  // git's words after sub
	noForce bool   // git -c clean.requireForce=false: clean deletes without -f
}

// table is the decision table, read top to bottom; the first row whose
// programs, subcommand and condition hold is the verdict.
var table = []row{
	{programs: []string{"rm"}, when: rmForcedOrRecursive, category: CategoryRm, why: whyRm},
	{programs: []string{"find"}, when: anyWord(func(a arg) bool { return a.lit && a.text == "-delete" }), category: CategoryRm, why: whyFindDel},
	{programs: git, subs: []string{"reset"}, when: hardReset, category: CategoryGitReset, why: whyReset},
	{programs: git, subs: []string{"checkout", "restore", "switch"}, when: overwritesWorkTree, category: CategoryGitReset, why: whyReset},
	{programs: git, subs: []string{"read-tree"}, when: resetsTree, category: CategoryGitReset, why: whyReset},
	{programs: git, subs: []string{"checkout-index"}, when: forcedCheckoutIndex, category: CategoryGitReset, why: whyReset},
	{programs: git, subs: []string{"clean"}, when: forcedClean, category: CategoryGitClean, why: whyClean},
	{programs: git, subs: pushes, when: pushForces, category: CategoryGitPush, why: whyForcePush},
	{programs: git, subs: pushes, when: pushDeletes, category: CategoryGitPush, why: whyPushDel},
	{programs: git, subs: []string{"branch"}, when: forceDeletesBranch, category: CategoryGitBranch, why: whyBranch},
	{programs: git, subs: []string{"update-ref"}, when: deletesRef, category: CategoryGitBranch, why: whyRef},
	{programs: databaseClients, when: destroysDataOnInput, category: CategorySQL, why: whySQL, fromInput: true},
	{programs: []string{"dropdb"}, category: CategorySQL, why: whySQL},
	{programs: []string{"mysqladmin"}, when: anyWord(func(a arg) bool { return strings.EqualFold(a.text, "drop") }), category: CategorySQL, why: whySQL},
	{programs: redisClients, when: func(s subject) bool { return redisFlushes(s.args[1:]) }, category: CategorySQL, why: whySQL},
	{programs: []string{"mongo", "mongosh"}, when: anyWord(mongoDrops), category: CategorySQL, why: whySQL},
	{programs: sqlClients, when: sqlInWords, category: CategorySQL, why: whySQL},
	{programs: []string{"mkfs*", "newfs*", "mke2fs", "mkswap", "wipefs", "blkdiscard", "mkdosfs", "mkntfs"}, category: CategoryDisk, why: whyDisk},
	{programs: []string{"dd"}, when: anyWord(writesDevice), category: CategoryDisk, why: whyDisk},
	{programs: []string{"chmod"}, when: func(s subject) bool { return chmodWorldWritable(s.args[1:]) }, category: CategoryChmod, why: whyChmod},
	{programs: []string{"mkdir", "install"}, when: makesWorldWritable, category: CategoryChmod, why: whyChmod},
	{programs: []string{"shutdown", "reboot", "halt", "poweroff"}, category: CategoryPower, why: whyPower},
	{programs: []string{"systemctl", "loginctl"}, when: powerVerb, category: CategoryPower, why: whyPower},
	{programs: []string{"init", "telinit"}, when: changesRunlevel, category: CategoryPower, why: whyPower},
}

var (
	git    = []string{"git"}
	pushes = []string{"push", "send-pack"}
	// sqlClients run SQL given on the command line or standard input.
	sqlClients = []string{"psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "osql", "isql", "cockroach",
		"clickhouse", "clickhouse-client", "duckdb", "mysqlsh", "usql", "pgcli", "mycli", "litecli", "cqlsh", "sqlplus",
		"snowsql", "trino", "presto", "bq", "db2", "sqlline", "spanner-cli", "mongo", "mongosh"}
	redisClients = []string{"redis-cli", "valkey-cli", "keydb-cli"}
	// databaseClients run SQL or a database's own destructive commands.
	databaseClients = append(append([]string{"dropdb", "mysqladmin"}, redisClients...), sqlClients...)
)

// ruleFor applies the table to an effective command. in is what feeds its
// standard input, or nil.
func ruleFor(base string, args []arg, in *input) rule {
	s := subject{base: base, args: args, in: in}
	var rows []*row
	if base == "git" {
		s.readSubcommand()
		rows = tableIndex().git[s.sub]
	} else {
		rows = tableIndex().rows(base)
	}
	for _, r := range rows {
		if r.when == nil || r.when(s) {
			return rule{category: r.category, why: r.why, fromInput: r.fromInput}
		}
	}
	return rule{}
}

// rowIndex finds a program's rows (git's by subcommand), in the table's
// order, with one map read rather than a walk over every row's programs
// for each command judged.
type rowIndex struct {
	named, git map[string][]*row
	prefixed   map[string][]*row // by the name before a trailing * (no two overlap)
	databases  map[string]bool
}

// tableIndex is built from the table once, when a command is first judged.
var tableIndex = sync.OnceValue(func() *rowIndex {
	x := &rowIndex{named: map[string][]*row{}, git: map[string][]*row{}, prefixed: map[string][]*row{}, databases: map[string]bool{}}
	for _, p := range databaseClients {
		x.databases[p] = true
	}
	for i := range table {
		r := &table[i]
		for _, sub := range r.subs { // only git's rows have subcommands
			x.git[sub] = append(x.git[sub], r)
		}
		for _, p := range r.programs {
			if prefix, ok := strings.CutSuffix(p, "*"); ok {
				x.prefixed[prefix] = append(x.prefixed[prefix], r)
			} else if r.subs == nil {
				x.named[p] = append(x.named[p], r)
			}
		}
	}
	return x
})

func (x *rowIndex) rows(base string) []*row {
	if rows, ok := x.named[base]; ok {
		return rows
	}
	for prefix, rows := range x.prefixed {
		if strings.HasPrefix(base, prefix) {
			return rows
		}
	}
	return nil
}

func isDatabaseClient(base string) bool { return tableIndex().databases[base] }

// anyWord is the condition that one of the command's words (past the
// program) matches.
func anyWord(match func(arg) bool) func(subject) bool {
	return func(s subject) bool {
		for _, a := range s.args[1:] {
			if match(a) {
				return true
			}
		}
		return false
	}
}

// writesDevice: dd's of= is also a write access (see accessRecorder.add);
// the row is what judges the values a variable may hold (`dd $target`).
func writesDevice(a arg) bool {
	target, ok := strings.CutPrefix(a.text, "of=")
	return ok && isRawDevice(target)
}

// sqlInWords: a word of a SQL client holds a destructive statement.
func sqlInWords(s subject) bool {
	for _, a := range s.args[1:] {
		if sqlFor(s.base, a.text) {
			return true
		}
	}
	return false
}

func mongoDrops(a arg) bool {
	return strings.Contains(a.text, "dropDatabase") || strings.Contains(a.text, ".drop(")
}

// makesWorldWritable: mkdir -m and install -m take chmod's modes.
func makesWorldWritable(s subject) bool {
	opts, _ := scanOptions(s.args[1:], optSpec{value: "mgotSZ", long: []string{"mode", "group", "owner", "target-directory", "suffix", "context"}, permute: true})
	mode, ok := valueOf(opts, "m", "mode")
	return ok && chmodWorldWritable([]arg{mode})
}

// changesRunlevel: init 0 halts, init 6 reboots.
func changesRunlevel(s subject) bool {
	_, ops := scanOptions(s.args[1:], optSpec{})
	return len(ops) > 0 && oneOf(ops[0].text, "0", "6")
}

// rmForcedOrRecursive: any -r, -R or -f in any short cluster, a long
// --recursive, --force or --no-preserve-root (getopt accepts `--rec`), or
// an option spelled with an expansion (`-$x`), which may be any of those.
func rmForcedOrRecursive(s subject) bool {
	for _, a := range s.args[1:] {
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
		if anyLongPrefix(t, 3, "--recursive", "--force", "--no-preserve-root") {
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

func modeWorldWritable(t string) bool {
	symbolic, _ := othersWritable(t)
	return octalWorldWritable(t) || symbolic
}

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

// othersWritable reads a symbolic mode clause by clause and says whether
// others end up with write permission; both are false when t is not a
// mode.
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
func powerVerb(s subject) bool {
	_, ops := scanOptions(s.args[1:], optSpec{
		value: "tpsHMnoP",
		long: []string{"type", "property", "signal", "host", "machine", "lines", "output", "kill-whom", "kill-value",
			"job-mode", "root", "image", "preset-mode", "boot-loader-menu", "boot-loader-entry", "reboot-argument",
			"what", "timestamp", "drop-in", "when", "state", "message", "image-policy", "check-inhibitors"},
		permute: true,
	})
	return len(ops) > 0 && oneOf(ops[0].text, "reboot", "poweroff", "halt", "kexec", "soft-reboot", "emergency",
		"rescue", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep")
}

// destroysDataOnInput looks for destructive statements in what feeds a
// database client's input.
func destroysDataOnInput(s subject) bool {
	return s.in != nil && (s.in.sql || sqlFor(s.base, s.in.text) || oneOf(s.base, redisClients...) && redisScriptFlushes(s.in.text))
}
