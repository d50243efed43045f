// Package catalog knows what a model holds and what it costs: its context
// window, its output limit and the price of input, output, cache reads and
// cache writes. The data is catwalk's, embedded in the binary (no network
// at run time), parsed on first use rather than at start-up, with the
// user's own entries (config "models") on top. A model the catalogue does
// not know still works; its cost is unknown, never zero.
package catalog

import (
	"maps"
	"regexp"
	"strings"
	"sync"
	"weak"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Where the built-in data comes from. PriceDate is the day that catwalk
// release was published: prices are as of then. A test checks that Source
// names the version go.mod requires, so upgrading catwalk means updating
// both.
const (
	Source    = "catwalk v0.52.1"
	PriceDate = "2026-08-19"
)

// Model is what the catalogue says about one model.
type Model struct {
	ID string
	// ContextWindow and MaxOutput are in tokens; zero when unknown.
	ContextWindow int
	MaxOutput     int
	Price         Price
	// Priced is false when nobody said what the model costs.
	Priced bool
	// Origin says where the entry came from: the catalogue (and which of
	// its providers) or a config file.
	Origin string
	// Vision says the model reads images (catwalk's supports_attachments,
	// or the config's "vision").
	Vision bool
}

// Override is a user's entry for one model. Zero sizes and nil prices keep
// what the catalogue says; a price for a model the catalogue lacks needs
// Input and Output (unset cache prices are then those of plain input).
type Override struct {
	ContextWindow int
	MaxOutput     int
	Input         *float64
	Output        *float64
	CacheRead     *float64
	CacheWrite    *float64
	// Vision, when set, says whether the model reads images.
	Vision *bool
	// Origin names the config file, for /cost.
	Origin string
}

// Catalog answers model questions. Its zero value is not usable: make one
// with New. It is safe for concurrent use.
type Catalog struct {
	overrides map[string]Override
	load      func() []catwalk.Provider

	// parsed is the embedded data read into tables, held weakly: once the
	// session's few models are in memo, nothing asks for it again, and
	// the collector takes its 0.4 MB back. A question memo cannot answer
	// after that parses it again (tens of milliseconds, for a new model).
	parseMu sync.Mutex
	parsed  weak.Pointer[tables]

	// memo keeps every answer Lookup gave, the "not known" ones included:
	// the agent asks about the session's model several times a step, and
	// for a model no provider lists (a proxy's own name) finding that out
	// means scanning every provider's models for a dated variant. The
	// data and the overrides never change after New, so an answer never
	// goes stale.
	memoMu sync.RWMutex
	memo   map[lookupKey]lookupResult
}

// tables is the embedded data by provider: byProvider maps a catwalk
// provider id to its models by id; order is the providers in catwalk's
// order, first-party ones first.
type tables struct {
	byProvider map[string]map[string]Model
	order      []string
}

type lookupKey struct{ preset, model string }

type lookupResult struct {
	model Model
	found bool
}

// New returns a catalogue of the embedded data with the user's overrides,
// keyed by model id.
// The map is copied: a caller changing it later cannot make remembered
// answers disagree with new ones.
func New(overrides map[string]Override) *Catalog {
	return &Catalog{overrides: maps.Clone(overrides), load: embedded.GetAll, memo: map[lookupKey]lookupResult{}}
}

// providerOf maps a shiro provider preset to the catwalk provider whose
// prices it charges. Local servers (ollama, lmstudio) and replay have
// none: what they cost is not the catalogue's to say.
func providerOf(preset string) (id string, fallback bool) {
	switch preset {
	case "anthropic", "openai", "openrouter", "groq", "deepseek", "xai":
		return preset, true
	case "custom-anthropic":
		return "anthropic", true
	case "custom-openai":
		return "openai", true
	}
	return "", false
}

// Lookup finds a model for a provider preset: the preset's own catalogue
// first, then (for hosted presets, whose endpoint may be a proxy) every
// provider's, then the user's overrides on top. ok is false when neither
// the catalogue nor the config knows the model.
func (c *Catalog) Lookup(preset, model string) (Model, bool) {
	key := lookupKey{preset, model}
	c.memoMu.RLock()
	r, ok := c.memo[key]
	c.memoMu.RUnlock()
	if ok {
		return r.model, r.found
	}
	r.model, r.found = c.tables().find(preset, model)
	if o, ok := c.overrides[model]; ok {
		r.model, r.found = o.apply(r.model, model), true
	}
	c.memoMu.Lock()
	c.memo[key] = r
	c.memoMu.Unlock()
	return r.model, r.found
}

// SeesImages reports whether a model reads images. A model nobody
// describes (a local server's, a proxy's own name) is taken at its word:
// only a known entry without vision says no.
func (c *Catalog) SeesImages(preset, model string) bool {
	m, ok := c.Lookup(preset, model)
	return !ok || m.Vision
}

// Cost prices usage on a model: its tokens, and the searches the provider
// ran at the preset's SearchPrice. known is false when the model has no
// price, or when there were searches at a price nobody knows: a cost is
// unknown rather than too low.
func (c *Catalog) Cost(preset, model string, u llm.Usage) (usd float64, known bool) {
	m, _ := c.Lookup(preset, model)
	search := SearchPrice(preset)
	if !m.Priced || (u.WebSearches > 0 && search == 0) {
		return 0, false
	}
	return m.Price.Cost(u) + search*float64(u.WebSearches)/1e3, true
}

// ContextWindow is the model's context window in tokens, zero when unknown.
func (c *Catalog) ContextWindow(preset, model string) int {
	m, _ := c.Lookup(preset, model)
	return m.ContextWindow
}

func (c *tables) find(preset, model string) (Model, bool) {
	own, fallback := providerOf(preset)
	if own != "" {
		if m, ok := matchIn(c.byProvider[own], model); ok {
			return m, true
		}
	}
	if !fallback {
		return Model{ID: model}, false
	}
	for _, p := range c.order {
		if m, ok := matchIn(c.byProvider[p], model); ok {
			return m, true
		}
	}
	return Model{ID: model}, false
}

// dated is a release-date suffix: -20250929 or -2024-08-06.
var dated = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// matchIn finds model among models: its exact id, else the same name with
// or without a release date ("claude-sonnet-4-5" is the dated
// "claude-sonnet-4-5-20250929"; the newest date wins).
func matchIn(models map[string]Model, model string) (Model, bool) {
	if m, ok := models[model]; ok {
		return m, true
	}
	if base := dated.ReplaceAllString(model, ""); base != model {
		m, ok := models[base]
		return m, ok
	}
	var best Model
	found := false
	for id, m := range models {
		if strings.HasPrefix(id, model+"-") && dated.MatchString(id) && len(id)-len(model) <= 12 && (!found || id > best.ID) {
			best, found = m, true
		}
	}
	return best, found
}

// tables returns the parsed data, parsing it if it was never parsed or
// has been collected since: on first use only, since 40-odd JSON files are
// not worth parsing on a start that never asks (shiro --version).
func (c *Catalog) tables() *tables {
	c.parseMu.Lock()
	defer c.parseMu.Unlock()
	if t := c.parsed.Value(); t != nil {
		return t
	}
	t := c.parse()
	c.parsed = weak.Make(t)
	return t
}

func (c *Catalog) parse() *tables {
	t := &tables{byProvider: map[string]map[string]Model{}}
	for _, p := range c.load() {
		id := string(p.ID)
		if id == "" {
			continue
		}
		models := make(map[string]Model, len(p.Models))
		for _, m := range p.Models {
			models[m.ID] = fromCatwalk(id, m)
		}
		t.byProvider[id] = models
		t.order = append(t.order, id)
	}
	return t
}

// fromCatwalk reads one catwalk entry. catwalk's two "cached" prices are
// not used the same way by every provider file: some give the cache write
// (above input) and the cache read (below it), others only a read price in
// either field. So the price below input is the read, the one above it the
// write; a missing one costs what plain input costs.
func fromCatwalk(provider string, m catwalk.Model) Model {
	out := Model{ID: m.ID, ContextWindow: int(m.ContextWindow), MaxOutput: int(m.DefaultMaxTokens), Origin: Source + " (" + provider + ")",
		Vision: m.SupportsImages}
	if m.CostPer1MIn == 0 && m.CostPer1MOut == 0 {
		return out
	}
	p := Price{Input: m.CostPer1MIn, Output: m.CostPer1MOut, CacheRead: m.CostPer1MIn, CacheWrite: m.CostPer1MIn}
	for _, v := range []float64{m.CostPer1MInCached, m.CostPer1MOutCached} {
		switch {
		case v == 0:
		case v < p.Input && (p.CacheRead == p.Input || v < p.CacheRead):
			p.CacheRead = v
		case v > p.Input:
			p.CacheWrite = v
		}
	}
	out.Price, out.Priced = p, true
	return out
}

// apply lays an override over what the catalogue found.
func (o Override) apply(m Model, id string) Model {
	m.ID = id
	if o.ContextWindow > 0 {
		m.ContextWindow = o.ContextWindow
	}
	if o.MaxOutput > 0 {
		m.MaxOutput = o.MaxOutput
	}
	if o.Vision != nil {
		m.Vision = *o.Vision
	}
	if o.Input == nil && o.Output == nil && o.CacheRead == nil && o.CacheWrite == nil {
		return m
	}
	m.Origin = o.Origin
	if !m.Priced {
		if o.Input == nil || o.Output == nil {
			return m
		}
		m.Price = Price{Input: *o.Input, Output: *o.Output, CacheRead: *o.Input, CacheWrite: *o.Input}
		m.Priced = true
	}
	for dst, src := range map[*float64]*float64{&m.Price.Input: o.Input, &m.Price.Output: o.Output, &m.Price.CacheRead: o.CacheRead, &m.Price.CacheWrite: o.CacheWrite} {
		if src != nil {
			*dst = *src
		}
	}
	return m
}
