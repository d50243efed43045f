package permission

import "fmt"

// refusal is the text a denied call sends back to the model.
func (r Result) refusal() string {
	if r.Origin != "" && r.Source != SourceGrant {
		return fmt.Sprintf("Refused by the permission rule %s.", r.Origin)
	}
	if r.Pattern != "" && r.Source != SourceGrant {
		return fmt.Sprintf("Refused by the permission rule %s: %q = deny.", r.Key, r.Pattern)
	}
	return fmt.Sprintf("Refused by the permission rules: %s is denied.", r.Tool)
}

// Describe is the approval prompt's line about why it asks, or "" when
// nothing more than the tool's default applies:
//
//	matched bash: "git push *"
//	matched mcp__* = ask
//	no bash rule matches "curl x"
//	matched bash: "echo *", but the command line writes to a file through a redirection, which only a "*" rule covers
//	the command line could not be parsed, so no bash rule can allow it
//	the command line runs a command decided at run time, so the bash rules cannot be checked against it
func (r Result) Describe() string {
	key := r.Key
	if key == "" {
		key = r.Tool
	}
	matched := fmt.Sprintf("matched %s: %q", key, r.Pattern)
	if r.Origin != "" {
		matched = "matched " + r.Origin
	}
	if r.Source == SourceGrant {
		matched = fmt.Sprintf("granted %s %q for this session", r.Tool, r.Pattern)
	}
	switch r.Cause {
	case CauseUnparsed:
		return fmt.Sprintf("the command line could not be parsed, so no %s rule can allow it", key)
	case CauseRedirect:
		return matched + ", but the command line writes to a file through a redirection, which only a \"*\" rule covers"
	case CauseAssign:
		return matched + ", but the command line sets shell variables, which only a \"*\" rule covers"
	case CauseOpaque:
		return fmt.Sprintf("the command line runs a command decided at run time, so the %s rules cannot be checked against it", key)
	case CauseRunsCode:
		return matched + ", but the command also runs other code (" + r.RunsCode + "), which only a \"*\" rule or a grant of exactly this command covers"
	case CauseNoMatch:
		if r.Subject == "" {
			return fmt.Sprintf("no %s rule matches a call without a subject", key)
		}
		return fmt.Sprintf("no %s rule matches %q", key, r.Subject)
	}
	switch {
	case r.Source == SourceGrant:
		return fmt.Sprintf("allowed for this session by %s %q", r.Tool, r.Pattern)
	case r.Pattern != "":
		return matched
	case r.Source == SourceConfig:
		return fmt.Sprintf("matched %s = %s", key, r.Decision)
	}
	return ""
}
