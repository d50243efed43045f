package catalog

import (
	"math"
	"os"
	"regexp"
	"runtime"
	"testing"

	"charm.land/catwalk/pkg/catwalk"

	"github.com/shiro-neko/shiro/internal/llm"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEmbeddedDataPricesThePresetDefaults(t *testing.T) {
	c := New(nil)
	// The anthropic preset's default model is undated in shiro and dated
	// in the catalogue.
	m, ok := c.Lookup("anthropic", "claude-sonnet-4-5")
	if !ok || !m.Priced {
		t.Fatalf("claude-sonnet-4-5 is not in the catalogue: %+v", m)
	}
	want := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	if m.Price != want || m.ContextWindow != 200000 || m.MaxOutput == 0 {
		t.Fatalf("claude-sonnet-4-5 = %+v, want price %+v and a 200k window", m, want)
	}
	for _, tc := range []struct{ preset, model string }{{"openai", "gpt-5"}, {"xai", "grok-4.3"}, {"custom-anthropic", "claude-haiku-4-5-20251001"}} {
		if m, ok := c.Lookup(tc.preset, tc.model); !ok || !m.Priced || m.ContextWindow == 0 {
			t.Errorf("%s/%s: %+v, %v; want a priced entry with a window", tc.preset, tc.model, m, ok)
		}
	}
}

func TestUnknownModelsHaveNoPriceNotAZeroOne(t *testing.T) {
	c := New(nil)
	for _, tc := range []struct{ preset, model string }{{"anthropic", "claude-made-up-9"}, {"ollama", "claude-sonnet-4-5"}, {"replay", "replay"}} {
		m, ok := c.Lookup(tc.preset, tc.model)
		if ok || m.Priced {
			t.Errorf("%s/%s is priced (%+v); a local or unknown model has no price", tc.preset, tc.model, m)
		}
		if usd, known := c.Cost(tc.preset, tc.model, llm.Usage{InputTokens: 1000}); known || usd != 0 {
			t.Errorf("%s/%s cost = %v, %v; want unknown", tc.preset, tc.model, usd, known)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func TestOverridesAddAndReplaceModels(t *testing.T) {
	c := New(map[string]Override{
		"house-model":       {ContextWindow: 32000, Input: ptr(1), Output: ptr(2), Origin: "config.json"},
		"half-priced":       {Input: ptr(1)},
		"claude-sonnet-4-5": {CacheRead: ptr(0.5), ContextWindow: 1000000, Origin: "config.json"},
	})
	m, ok := c.Lookup("ollama", "house-model")
	if !ok || !m.Priced || m.Price != (Price{Input: 1, Output: 2, CacheRead: 1, CacheWrite: 1}) || m.ContextWindow != 32000 || m.Origin != "config.json" {
		t.Fatalf("house-model = %+v, %v", m, ok)
	}
	if usd, known := c.Cost("ollama", "house-model", llm.Usage{InputTokens: 2_000_000, OutputTokens: 500_000}); !known || !near(usd, 3) {
		t.Fatalf("house-model cost = %v, %v; want $3", usd, known)
	}
	if m, _ := c.Lookup("ollama", "half-priced"); m.Priced {
		t.Fatalf("an input price alone priced an unknown model: %+v", m)
	}
	m, _ = c.Lookup("anthropic", "claude-sonnet-4-5")
	if m.Price != (Price{Input: 3, Output: 15, CacheRead: 0.5, CacheWrite: 3.75}) || m.ContextWindow != 1000000 {
		t.Fatalf("overridden claude-sonnet-4-5 = %+v", m)
	}
}

func TestCatwalkCachedPricesAreToldApartByValue(t *testing.T) {
	// Anthropic's file gives the write in one field and the read in the
	// other; OpenAI's gives only the read, in the first.
	anth := fromCatwalk("anthropic", catwalk.Model{ID: "a", CostPer1MIn: 3, CostPer1MOut: 15, CostPer1MInCached: 3.75, CostPer1MOutCached: 0.3})
	oai := fromCatwalk("openai", catwalk.Model{ID: "o", CostPer1MIn: 5, CostPer1MOut: 30, CostPer1MInCached: 0.5})
	free := fromCatwalk("copilot", catwalk.Model{ID: "f"})
	if anth.Price != (Price{3, 15, 0.3, 3.75}) || oai.Price != (Price{5, 30, 0.5, 5}) || free.Priced {
		t.Fatalf("anthropic %+v, openai %+v, free %+v", anth.Price, oai.Price, free)
	}
}

func TestTheDataIsParsedOnFirstUseOnly(t *testing.T) {
	calls := 0
	c := New(nil)
	c.load = func() []catwalk.Provider {
		calls++
		return []catwalk.Provider{{ID: "anthropic", Models: []catwalk.Model{{ID: "m", CostPer1MIn: 1, CostPer1MOut: 1}}}}
	}
	if calls != 0 {
		t.Fatal("New parsed the data")
	}
	c.Lookup("anthropic", "m")
	c.ContextWindow("anthropic", "m")
	if calls != 1 {
		t.Fatalf("the data was loaded %d times, want once", calls)
	}
}

// The parsed data is not kept once answers are remembered: the collector
// may take it, and a new question parses it again, with the same answers.
func TestTheParsedDataIsLetGoAndParsedAgain(t *testing.T) {
	calls := 0
	c := New(nil)
	c.load = func() []catwalk.Provider {
		calls++
		return []catwalk.Provider{{ID: "anthropic", Models: []catwalk.Model{{ID: "m", ContextWindow: 1000}, {ID: "n", ContextWindow: 2000}}}}
	}
	if c.ContextWindow("anthropic", "m") != 1000 {
		t.Fatal("m: wrong window")
	}
	runtime.GC()
	if c.parsed.Value() != nil {
		t.Fatal("the parsed data outlived its lookup")
	}
	if c.ContextWindow("anthropic", "m") != 1000 || calls != 1 {
		t.Fatalf("a remembered answer parsed again (%d loads)", calls)
	}
	if c.ContextWindow("anthropic", "n") != 2000 || calls != 2 {
		t.Fatalf("n after the data was collected: %d loads", calls)
	}
}

func TestPriceCostAndSavings(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	u := llm.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheWriteTokens: 400_000}
	if got := p.Cost(u); !near(got, 3+1.5+0.6+1.5) {
		t.Fatalf("cost = %v", got)
	}
	// Reads saved 2M × 2.70; writes cost 0.4M × 0.75 more.
	if got := p.Savings(u); !near(got, 5.4-0.3) {
		t.Fatalf("savings = %v", got)
	}
}

// Source and PriceDate are what /cost and docs/cost.md show; they must
// name the catwalk version the build really uses.
func TestSourceNamesTheRequiredCatwalkVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`charm\.land/catwalk (v\S+)`).FindSubmatch(mod)
	if got == nil {
		t.Fatal("go.mod does not require charm.land/catwalk")
	}
	if want := "catwalk " + string(got[1]); Source != want {
		t.Fatalf("Source = %q but go.mod requires %s: update Source and PriceDate (the release's date: go list -m -json charm.land/catwalk@%s)", Source, want, got[1])
	}
	if !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(PriceDate) {
		t.Fatalf("PriceDate %q is not a date", PriceDate)
	}
}

func BenchmarkFirstLookup(b *testing.B) {
	for b.Loop() {
		New(nil).Lookup("anthropic", "claude-sonnet-4-5")
	}
}

// A step asks about the session's model several times; for a model no
// provider lists, each answer used to scan every provider's models (about
// 120 allocations and milliseconds on a loaded machine). The answer is
// remembered, "not known" included, and stays what a fresh catalogue says.
func TestRepeatedLookupsAreRemembered(t *testing.T) {
	overrides := map[string]Override{"house-model": {ContextWindow: 32000, Input: ptr(1), Output: ptr(2)}}
	c := New(overrides)
	cases := []struct{ preset, model string }{
		{"custom-openai", "my-proxy-model"}, // unknown, after a scan of every provider
		{"ollama", "qwen3:8b"},              // unknown, no scan
		{"anthropic", "claude-sonnet-4-5"},  // known, through its dated id
		{"ollama", "house-model"},           // from the config
	}
	for _, tc := range cases {
		first, firstOK := c.Lookup(tc.preset, tc.model)
		if allocs := testing.AllocsPerRun(20, func() { c.Lookup(tc.preset, tc.model) }); allocs != 0 {
			t.Errorf("%s/%s: a repeated lookup allocates %.0f times; it should be a remembered answer", tc.preset, tc.model, allocs)
		}
		again, againOK := c.Lookup(tc.preset, tc.model)
		fresh, freshOK := New(overrides).Lookup(tc.preset, tc.model)
		if again != first || againOK != firstOK || again != fresh || againOK != freshOK {
			t.Errorf("%s/%s: remembered %+v, %v; first %+v, %v; fresh %+v, %v", tc.preset, tc.model, again, againOK, first, firstOK, fresh, freshOK)
		}
	}
	// The caller's map is not the catalogue's: changing it later does not
	// change answers, remembered or not.
	overrides["house-model"] = Override{ContextWindow: 1}
	overrides["late-model"] = Override{ContextWindow: 1}
	if m, _ := c.Lookup("ollama", "house-model"); m.ContextWindow != 32000 {
		t.Errorf("house-model's window became %d after the caller's map changed", m.ContextWindow)
	}
	if _, ok := c.Lookup("ollama", "late-model"); ok {
		t.Error("a model added to the caller's map after New is known")
	}
}

// Vision comes from catwalk's supports_attachments; a model nobody
// describes is taken at its word, and the config's "vision" wins.
func TestSeesImages(t *testing.T) {
	no := false
	yes := true
	c := New(map[string]Override{"deepseek-v4-pro": {Vision: &yes}, "claude-sonnet-4-6": {Vision: &no}})
	plain := New(nil)
	for _, tc := range []struct {
		c             *Catalog
		preset, model string
		want          bool
	}{
		{plain, "anthropic", "claude-sonnet-4-6", true},
		{plain, "deepseek", "deepseek-v4-pro", false},
		{plain, "ollama", "llava:13b", true},
		{c, "deepseek", "deepseek-v4-pro", true},
		{c, "anthropic", "claude-sonnet-4-6", false},
	} {
		if got := tc.c.SeesImages(tc.preset, tc.model); got != tc.want {
			t.Errorf("%s/%s: %v, want %v", tc.preset, tc.model, got, tc.want)
		}
	}
}

// Searches the provider ran are charged per search on top of the tokens:
// $10 per thousand on Anthropic and OpenAI. Searches on a preset whose
// search price nobody knows make the cost unknown, never too low.
func TestCostChargesProviderSearches(t *testing.T) {
	c := New(map[string]Override{"proxy-model": {Input: ptr(1.0), Output: ptr(2.0)}})
	tokens := llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	searching := tokens
	searching.WebSearches = 3
	for _, preset := range []string{"anthropic", "openai", "custom-anthropic"} {
		plain, ok := c.Cost(preset, "proxy-model", tokens)
		if !ok || !near(plain, 3) {
			t.Fatalf("%s: tokens alone cost %v (known %v), want $3", preset, plain, ok)
		}
		got, ok := c.Cost(preset, "proxy-model", searching)
		if !ok || !near(got, 3+0.03) {
			t.Errorf("%s: with 3 searches %v (known %v), want $3.03", preset, got, ok)
		}
	}
	if got, ok := c.Cost("openrouter", "proxy-model", searching); ok {
		t.Errorf("searches at an unknown price cost %v, want unknown", got)
	}
	if got, ok := c.Cost("openrouter", "proxy-model", tokens); !ok || !near(got, 3) {
		t.Errorf("no searches on openrouter cost %v (known %v), want $3", got, ok)
	}
}
