package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// Tool names are letters, digits, _ . and -, at most 128 of them.
func TestToolNamesInAManifest(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"bash", true},
		{"mcp.server_x-1", true},
		{strings.Repeat("a", maxToolNameLen), true},
		{strings.Repeat("a", maxToolNameLen+1), false},
		{"", false},
		{"two words", false},
		{"naïve", false},
	} {
		raw, _ := json.Marshal([]string{c.name})
		_, err := parseTools(raw)
		if (err == nil) != c.ok {
			t.Errorf("tool name %q: err %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
