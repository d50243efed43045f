package protocol

import "strings"

// CommandName is the name of the slash command a prompt starts with, and
// whether it starts with one: "/" and a name of letters, digits, "-", "_"
// and ":", then a space or the end, so that a prompt starting with a path
// ("/etc/hosts looks wrong") stays a prompt. Whether a command of that
// name exists is the caller's to say.
func CommandName(text string) (string, bool) {
	first, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	name, ok := strings.CutPrefix(first, "/")
	if !ok || name == "" {
		return "", false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == ':':
		default:
			return "", false
		}
	}
	return name, true
}
