package plugin_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
)

// A manifest plugin may add tools in the tool manifests' schema; a bad one
// is named by its place in the list, and a plugin with tools needs no
// deny rule.
func TestManifestPluginTools(t *testing.T) {
	t.Parallel()
	m, err := plugin.ParseManifest("p.json", []byte(`{"name":"p","description":"d","tools":[
		{"name":"notes","description":"Notes","kind":"read","path":"NOTES.md"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := m.Plugin()
	if p.Appendix != "" {
		t.Errorf("a plugin that refuses nothing got an appendix: %q", p.Appendix)
	}
	if len(p.ToolManifests) != 1 || p.ToolManifests[0].Name != "notes" || p.ToolManifests[0].Kind != "read" {
		t.Errorf("tools %+v", p.ToolManifests)
	}
	for _, c := range []struct{ body, want string }{
		{`{"name":"p","description":"d","tools":[{"name":"a","description":"d","kind":"read","path":"x"},{"name":"b","description":"d","kind":"http","url":"http://x"}]}`,
			`plugin manifest p.json: tools[1]: field "url": "http://x" must be an https:// address`},
		{`{"name":"p","description":"d","tools":[]}`, `deny: missing`},
		{`{"name":"p","description":"d","tools":{}}`, `tools:`},
	} {
		_, err := plugin.ParseManifest("p.json", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}
