package permission

import "fmt"

// Decision is the gate's one word for what happens to a call, from the
// rules through the explanation to the approval broker: allow, ask, deny,
// or block. A rule says allow, ask or deny; block is a compiled plugin's
// or an external hook's refusal, which no rule, grant or person lifts.
type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
	// Block is never written in a rule: ParseDecision refuses it.
	Block Decision = "block"
)

// ParseDecision accepts exactly "allow", "ask" or "deny". Anything else is
// refused rather than guessed at, because a guess could widen access.
func ParseDecision(s string) (Decision, bool) {
	switch d := Decision(s); d {
	case Allow, Ask, Deny:
		return d, true
	}
	return "", false
}

// rank orders decisions from the most permissive to the most restrictive, so
// a call with several subjects takes the highest rank among them.
func (d Decision) rank() int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	case Block:
		return 3
	}
	return 2 // Deny, and anything unexpected fails closed
}

// Source says where a decision came from.
type Source string

const (
	// SourceConfig: an entry of the "permission" config object.
	SourceConfig Source = "config"
	// SourceDefault: a rule of the default table of a tool that reads
	// workspace paths (allow, except the secret files: `.env` is denied).
	SourceDefault Source = "default"
	// SourceFallback: no rule names the tool, so its effect's default
	// decides: allow for tools that read or keep the agent's own state, ask
	// for the rest and for tools whose effect is unknown.
	SourceFallback Source = "fallback"
	// SourceGrant: an ask lifted by an `always` grant of this session.
	SourceGrant Source = "grant"
)

// Cause explains an ask that a matching rule did not settle on its own.
type Cause int

const (
	// CauseNone: the decision is the matching rule's (or the fallback's).
	CauseNone Cause = iota
	// CauseNoMatch: the tool has a rule table and no rule in it matches.
	CauseNoMatch
	// CauseUnparsed: a bash command line could not be parsed, so no rule can
	// be applied to its commands.
	CauseUnparsed
	// CauseRedirect: an allow rule named the command, but the command line
	// also writes to a file through a redirection (`> file`).
	CauseRedirect
	// CauseAssign: an allow rule named the command, but the command line also
	// sets shell variables (`PATH=… git status`, `export …`, a for loop).
	CauseAssign
	// CauseOpaque: the command line runs something decided only at run time,
	// so the rules cannot be checked against it: the bash table has deny
	// rules and the line runs `$X rm` or `sh -c "$CMD"`, or an allow rule
	// narrower than `*` names a git command whose alias cannot be resolved
	// (`git -c alias.r="$X" r`). No grant lifts it.
	CauseOpaque
	// CauseRunsCode: an allow rule or grant named the command, but the
	// command runs other code too: a command or script it is given
	// (`sudo …`, `sh -c …`, `find -exec`), a git setting or alias that
	// runs a program (`git -c core.pager=…`), a redefined command name.
	// Only a `*` rule, or a grant of exactly that command, covers it.
	CauseRunsCode
)

func (c Cause) String() string {
	switch c {
	case CauseNone:
		return "none"
	case CauseNoMatch:
		return "no-match"
	case CauseUnparsed:
		return "unparsed"
	case CauseRedirect:
		return "redirect"
	case CauseAssign:
		return "assign"
	case CauseOpaque:
		return "opaque"
	case CauseRunsCode:
		return "runs-code"
	}
	return fmt.Sprintf("Cause(%d)", int(c))
}
