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
// wildcard key (in source order) that matches its name, else among the
// built-in defaults, else by the fallback: allow for read-only and free
// tools, ask for everything else. A config entry replaces the tool's
// defaults; it does not merge with them.
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
// A bash command line is parsed (shellguard.SimpleCommands) and every simple
// command is a subject of its own, matched as its words joined by single
// spaces. So `git *` does not allow `git status; curl x | sh`: curl and sh
// must be allowed too. A pattern ending in " *" also matches the bare
// command (`git status *` matches `git status`). A rule narrower than `*`
// names a command, not what surrounds it: if the line also writes a file
// through a redirection or sets shell variables, such an allow becomes an
// ask. Deny rules (only they) also reach the commands a wrapper or nested
// shell runs (shellguard.Effective): `rm *` denies `sudo rm x` and
// `sh -c 'rm x'`; where what runs is decided at run time (`$X rm`), those
// deny rules cannot be checked and the call asks. A line that does not
// parse asks (the guard judges it separately), unless the bash entry is a
// single decision, which applies regardless.
//
// # Grants
//
// Answering `always` in the prompt adds the grants of GrantFor to the
// session's Grants: for bash the program and ` *` (`ls -la` grants `ls *`),
// or with its subcommand for programs that have them (`git status -s`
// grants `git status *`); for other tools `*`. A grant lifts an ask, never
// a deny, and is never written to disk.
//
// # Not here
//
// --yolo and auto-approved tools are the gate's business: it calls
// Result.AskAsAllow, which turns ask into allow and leaves deny alone.
// Rules judge the call as written, not what a program does with its
// arguments; the guard plugin and the path jail are the safety net.
package permission
