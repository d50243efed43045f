package catalog

import "testing"

// BenchmarkLookup is what a step pays to price its usage and size its
// context: the agent asks the catalogue about the session's model three
// times a step. A model the catalogue does not know (a local or proxied
// one) was the expensive case, since every provider's list was scanned for
// a dated variant each time.
func BenchmarkLookup(b *testing.B) {
	for _, tc := range []struct{ name, preset, model string }{
		{"known", "anthropic", "claude-sonnet-4-5"},
		{"unknown-hosted", "custom-openai", "my-proxy-model"},
		{"unknown-local", "ollama", "qwen3:8b"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := New(nil)
			c.Lookup(tc.preset, tc.model) // the embedded data is parsed once, not per step
			b.ReportAllocs()
			for b.Loop() {
				c.Lookup(tc.preset, tc.model)
			}
		})
	}
}
