package openai

import "strings"

// UsesResponsesByDefault reports whether model, one of OpenAI's own, goes
// to the Responses API when the config names no wire: the models that
// reason (they keep their reasoning across the steps of a tool loop only
// there) and those that exist only there.
func UsesResponsesByDefault(model string) bool {
	return reasons(model) || responsesOnly(model)
}

// reasons reports whether model is one of OpenAI's reasoning models: the
// o-series, GPT-5 (but not its chat variant), codex and deep research.
func reasons(model string) bool {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "gpt-5"):
		return !strings.Contains(m, "-chat")
	case len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9':
		return true
	case strings.HasPrefix(m, "codex"), strings.Contains(m, "-codex"), strings.Contains(m, "deep-research"):
		return true
	}
	return false
}

// responsesOnly reports whether model is served only by the Responses API.
func responsesOnly(model string) bool {
	m := strings.ToLower(model)
	return strings.HasSuffix(m, "-pro") || strings.Contains(m, "-pro-") || strings.HasPrefix(m, "computer-use") ||
		strings.HasPrefix(m, "codex") || strings.Contains(m, "-codex") || strings.Contains(m, "deep-research")
}
