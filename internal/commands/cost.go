package commands

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/catalog"
	"github.com/shiro-neko/shiro/internal/llm"
)

// runCost shows what the session cost: dollars for the session, the
// running (or last) turn and the subagents, what the prompt cache saved,
// the spend ceilings and where the prices come from; then the tokens, the
// main conversation's with its cache use and the prompt memo, and the
// subagents' by model, since they may run on another model at another
// price. A model without a price is said to cost an unknown amount, never
// zero.
func runCost(_ context.Context, h env, _ string) (agent.CommandOutcome, error) {
	s := h.conv
	v := s.Variant()
	_, preset := s.Provider()
	cat := h.Catalog()
	sp := s.Spending()
	lines := []string{
		fmt.Sprintf("model: %s (%s)", s.Model(), h.ProviderLabel()),
		fmt.Sprintf("agent: %s, thinking %s", v.Name, v.Thinking),
	}
	lines = append(lines, spendLines(sp, s.Config().Spend)...)
	subs := s.SubagentUsage()
	used := append(slices.Clone(sp.Models), subs...)
	lines = append(lines, savingsLine(cat, preset, used))
	lines = append(lines, priceLines(cat, preset, used)...)
	if line := searchLine(preset, sp.Tokens.WebSearches); line != "" {
		lines = append(lines, line)
	}
	lines = append(lines, h.CacheLines()...)
	if len(subs) == 0 {
		lines = append(lines, "subagents: none ran this session")
	} else {
		lines = append(lines, "subagents (counted apart from the above):")
		for _, su := range subs {
			u := su.Usage
			lines = append(lines, fmt.Sprintf("  %s: prompt tokens %s (uncached %s, cache write %s, cache read %s); output %s; %s",
				su.Model, Thousands(u.InputTokens+u.CacheWriteTokens+u.CacheReadTokens), Thousands(u.InputTokens),
				Thousands(u.CacheWriteTokens), Thousands(u.CacheReadTokens), Thousands(u.OutputTokens), dollars(cat, preset, su.Model, u)))
		}
	}
	return text(strings.Join(lines, "\n")), nil
}

// spendLines are the dollar sums and the ceilings.
func spendLines(sp agent.Spending, limits agent.Spend) []string {
	unknown := ""
	if len(sp.Unpriced) > 0 {
		unknown = fmt.Sprintf(" + an unknown amount (%s: no price)", strings.Join(sp.Unpriced, ", "))
	}
	lines := []string{fmt.Sprintf("spent: %s this session%s; this turn %s; subagents %s of the session's",
		agent.USD(sp.Session), unknown, agent.USD(sp.Turn), agent.USD(sp.Subagents))}
	ceilings := []string{ceilingText(agent.CeilingSession, limits.Session, sp.Session), ceilingText(agent.CeilingTurn, limits.Turn, sp.Turn)}
	return append(lines, "ceilings: "+strings.Join(ceilings, "; "))
}

func ceilingText(key string, ceiling, spent float64) string {
	if ceiling <= 0 {
		return key + " none"
	}
	return fmt.Sprintf("%s %s (%s left)", key, agent.USD(ceiling), agent.USD(max(ceiling-spent, 0)))
}

// savingsLine is what the prompt cache saved over every priced model.
func savingsLine(cat *catalog.Catalog, preset string, used []agent.ModelUsage) string {
	var saved float64
	priced := false
	for _, mu := range used {
		if m, _ := cat.Lookup(preset, mu.Model); m.Priced {
			saved += m.Price.Savings(mu.Usage)
			priced = true
		}
	}
	if !priced {
		return "cache savings: unknown (no priced model used yet)"
	}
	return fmt.Sprintf("cache savings: %s against sending every prompt token uncached", agent.USD(saved))
}

// priceLines say where each used model's price comes from, and when the
// catalogue's prices were published.
func priceLines(cat *catalog.Catalog, preset string, used []agent.ModelUsage) []string {
	lines := []string{fmt.Sprintf("prices: %s, as of %s (US dollars per million tokens)", catalog.Source, catalog.PriceDate)}
	seen := map[string]bool{}
	for _, mu := range used {
		if seen[mu.Model] {
			continue
		}
		seen[mu.Model] = true
		m, _ := cat.Lookup(preset, mu.Model)
		if !m.Priced {
			lines = append(lines, fmt.Sprintf("  %s: no price known; give it one under \"models\" in config.json (docs/cost.md)", mu.Model))
			continue
		}
		p := m.Price
		lines = append(lines, fmt.Sprintf("  %s: input %s, output %s, cache read %s, cache write %s (%s)",
			mu.Model, perM(p.Input), perM(p.Output), perM(p.CacheRead), perM(p.CacheWrite), m.Origin))
	}
	return lines
}

// searchLine counts the web searches the provider ran this session, which
// it charges per search on top of the tokens; "" when it ran none.
func searchLine(preset string, searches int) string {
	if searches == 0 {
		return ""
	}
	price := catalog.SearchPrice(preset)
	if price == 0 {
		return fmt.Sprintf("web searches the provider ran: %d, at a price shiro does not know (its cost is in no sum)", searches)
	}
	return fmt.Sprintf("web searches the provider ran: %d, at %s per 1000 (%s, counted in the sums above)",
		searches, perM(price), agent.USD(price*float64(searches)/1e3))
}

func perM(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("$%.4f", v), "0"), ".")
}

// dollars is what usage on one model cost, or that it is unknown.
func dollars(cat *catalog.Catalog, preset, model string, u llm.Usage) string {
	if usd, ok := cat.Cost(preset, model, u); ok {
		return agent.USD(usd)
	}
	return "cost unknown"
}
