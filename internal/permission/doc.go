// Package permission is the rules layer of shiro's gate. It runs after the
// plugins and hooks and before the repeat guard and the person's approval,
// and answers allow, ask or deny for one tool call.
//
// # Rules
//
// The config's "permission" object maps a tool name, or a pattern of tool
// names such as `mcp__*`, to a decision or to a table of subject patterns:
//
//	"permission": {
//	  "bash": {"*": "ask", "git *": "allow", "git push *": "ask", "rm *": "deny"},
//	  "web_fetch": "allow",
//	  "mcp__*": "deny"
//	}
//
// Patterns use `*` (any characters, newlines included) and `?` (one
// character); everything else is literal. Within a table the last matching
// rule wins and deny has no special precedence; when no rule matches, the
// call asks. A tool's entry is found by its exact key, else by the first
// wildcard key (in source order) that matches its name, else it is the
// tool's default. A config entry replaces the default; it does not merge
// with it.
//
// A decision that is not exactly allow, ask or deny, a value of the wrong
// shape, a key given twice and malformed JSON are errors (Parse): a
// misspelt deny after `"*": "allow"` must not leave everything allowed,
// and an entry dropped in silence would hide the mistake. Error texts name
// the key and the pattern; the caller adds the file and the field.
//
// # Defaults
//
// A default is decided by what the tool is, never by its name: the gate
// builds the Query from the tool's own description (QueryFor). A tool's
// effect gives Query.Default: allow for tools that only read, keep the
// agent's own state (task list, memory) or delegate to subagents, whose
// calls pass the gate themselves; ask for tools that write files, run
// programs or reach the network, and for any tool that does not say, such
// as an MCP tool. A reading tool whose subjects are workspace paths
// (Query.Paths) gets a table instead: allow, except the files that hold
// secrets, as internal/secrets.NamePatterns lists them (`.env` and
// `.env.*` but not `.env.example`, `*.pem`, `*.key`, `id_rsa`,
// `credentials`, …). Those rules match only a path's last element,
// ignoring case, so `config/.ENV` is denied like `.env`; a config entry
// for the tool matches whole paths as written. A Policy built with
// WithPathResolver also judges each path as the file it resolves to, so a
// symlink cannot carry a secret past the table.
//
// # Layers
//
// A session decides through a Policy: your rules with the session's
// grants, then the project's rules, which can only make a decision
// stricter. A cloned repository may ask or deny more, never allow more, and
// only what its entries say counts: a project table whose rules do not
// match a call leaves your decision alone.
//
// # Several subjects
//
// The reference implementation allowed a call with several subjects (the
// paths of read_many_files or apply_patch, both ends of move_file) when any
// one of them matched an allow rule, so one harmless path could carry a
// `.env` along. Here every subject is judged on its own and the strictest
// verdict wins: the call is denied if any subject is denied, allowed only if
// every subject is allowed, and asked otherwise.
//
// # bash
//
// A bash command line is analysed once (shellguard.Analyze; the gate hands
// the plugins' analysis over in Query.Shell) and every simple command is a
// subject of its own, matched as its words joined by single spaces. So
// `git *` does not allow `git status; curl x | sh`: curl and sh must be
// allowed too. A pattern ending in " *" also matches the bare
// command (`git status *` matches `git status`). A rule narrower than `*`
// names a command, not what surrounds it: if the line also writes a file
// through a redirection or sets shell variables, such an allow becomes an
// ask, and so it does for a command that runs other code besides the
// program the rule names (shellguard's Command.RunsCode: `git -c
// core.pager=…`, `sudo …`, `find -exec`, a redefined name). Deny and ask
// rules also match a command by its canonical spelling (`/bin/rm x` as
// `rm x`, `git -C d reset` as `git reset`), which never widens an allow.
// Deny rules (only they) also reach the commands a wrapper or nested shell
// runs (the analysis's effective commands): `rm *` denies `sudo rm x`
// and `sh -c 'rm x'`; where what runs is decided at run time (`$X rm`),
// those deny rules cannot be checked and the call asks. A git alias
// defined on the line is judged as what it runs: `git reset *` denies
// `git -c alias.r='reset --hard' r`, and `git *` does not allow an alias
// that runs a shell (`git -c alias.x='!sh' x` is judged as `sh`) nor one
// that cannot be resolved before it runs. A line that does not
// parse asks (the guard judges it separately), unless the bash entry is a
// single decision, which applies regardless.
//
// # Grants
//
// Answering `always` in the prompt adds the grants of GrantFor to the
// session's Grants: for bash the program and ` *` (`ls -la` grants `ls *`),
// or with its subcommand for programs that have them (`git status -s`
// grants `git status *`); for other tools `*`. A grant lifts an ask of
// your rules, never a deny and never the project's ask, and is never
// written to disk.
//
// # Approval policy
//
// Approval (untrusted, on-request, never) says when commands ask. The
// rules here do not apply it: under on-request the gate lifts an ask
// nobody wrote (the fallback, or a table of yours no rule of matched)
// when internal/contain says the command stays inside a sandbox that
// holds; under never it refuses what would still ask. A project's ask
// replaces the fallback's in Policy.Check, so it is never lifted.
//
// # Not here
//
// --yolo and auto-approved tools are the gate's business: it calls
// Result.AskAsAllow, which turns ask into allow and leaves deny alone.
// Rules judge the call as written, not what a program does with its
// arguments; the guard plugin and the path jail are the safety net.
package permission
