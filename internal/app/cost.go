package app

import (
	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/catalog"
	"github.com/shiro-neko/shiro/internal/config"
)

// newCatalog is the model catalogue with the user's "models" entries on
// top. Nothing is parsed until the first question: a start that never
// asks (shiro --version, a failing flag) does not pay for it.
func newCatalog(l Loaded) *catalog.Catalog {
	return catalog.New(catalogOverrides(l.Settings.Models, l.Paths.ConfigFile()))
}

func catalogOverrides(models map[string]config.ModelEntry, origin string) map[string]catalog.Override {
	if len(models) == 0 {
		return nil
	}
	out := make(map[string]catalog.Override, len(models))
	for id, e := range models {
		out[id] = catalog.Override{ContextWindow: e.ContextWindow, MaxOutput: e.MaxOutput,
			Input: e.Input, Output: e.Output, CacheRead: e.CacheRead, CacheWrite: e.CacheWrite, Vision: e.Vision, Origin: origin}
	}
	return out
}

// spend is the session's prices and ceilings.
func (a *App) spend() agent.Spend {
	s := a.Loaded.Settings
	return agent.Spend{Cost: a.catalog.Cost, Session: s.MaxSpendUSD, Turn: s.MaxSpendPerTurn, ConfigFile: a.Loaded.Paths.ConfigFile()}
}

// contextWindow is the current model's window, for compaction: the preset
// is read each time, since /provider may have changed it.
func (a *App) contextWindow(model string) int {
	return a.catalog.ContextWindow(a.settings().Preset.ID, model)
}

// outputLimit is the current model's output limit, for the adapters.
func (a *App) outputLimit(model string) int {
	m, _ := a.catalog.Lookup(a.settings().Preset.ID, model)
	return m.MaxOutput
}

// seesImages asks the catalogue whether the current provider's model
// reads images.
func (a *App) seesImages(model string) bool {
	return a.catalog.SeesImages(a.settings().Preset.ID, model)
}

func (h host) Catalog() *catalog.Catalog { return h.a.catalog }
