package claudecode

import (
	"errors"
	"fmt"
	"strings"
)

// Rule is one entry of a permissions list in Claude Code's syntax:
// `Tool` or `Tool(specifier)`, such as `Bash(npm run test:*)`,
// `Read(./secrets/**)`, `WebFetch(domain:example.com)` or
// `mcp__github__create_issue`.
type Rule struct {
	Tool string
	// Spec is what is inside the parentheses; HasSpec tells `Bash` from
	// `Bash()`, which is a mistake rather than "every command".
	Spec    string
	HasSpec bool
}

// ParseRule reads one rule. It checks only the shape; whether shiro can
// honour it is Translate's question.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, errors.New("the rule is empty")
	}
	name, spec, hasSpec := strings.Cut(s, "(")
	name = strings.TrimSpace(name)
	if name == "" {
		return Rule{}, errors.New("the rule names no tool; write Tool or Tool(specifier)")
	}
	for _, c := range name {
		if !(c == '_' || c == '-' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return Rule{}, fmt.Errorf("%q is not a tool name; write Tool or Tool(specifier)", name)
		}
	}
	r := Rule{Tool: name}
	if !hasSpec {
		return r, nil
	}
	inner, ok := strings.CutSuffix(spec, ")")
	if !ok {
		return Rule{}, errors.New("the specifier is not closed with \")\"")
	}
	if strings.TrimSpace(inner) == "" {
		return Rule{}, errors.New("the specifier is empty; write the tool's name alone to match every call")
	}
	r.Spec, r.HasSpec = inner, true
	return r, nil
}
