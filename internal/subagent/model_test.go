package subagent

import "testing"

// An agent's model: inherit is the parent's, an alias is its family's
// model unless the parent is of that family or the provider has no
// aliases, and an id is taken as it is.
func TestAgentModel(t *testing.T) {
	claude := ClaudeAliases()
	cases := []struct {
		model, parent string
		aliases       map[string]string
		want          string
	}{
		{"", "p-1", claude, "p-1"},
		{"inherit", "p-1", claude, "p-1"},
		{"haiku", "claude-opus-4-1", claude, "claude-haiku-4-5"},
		{"opus", "claude-opus-4-1-20250805", claude, "claude-opus-4-1-20250805"},
		{"sonnet", "gpt-5", nil, "gpt-5"},
		{"gpt-5-mini", "gpt-5", nil, "gpt-5-mini"},
	}
	for _, c := range cases {
		if got := agentModel(&Def{Model: c.model}, c.parent, c.aliases); got != c.want {
			t.Errorf("model %q under %q = %q, want %q", c.model, c.parent, got, c.want)
		}
	}
}
