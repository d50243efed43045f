package prompt

import (
	"fmt"
	"strconv"

	"github.com/shiro-neko/shiro/internal/llm"
)

// CacheReport is what /cost shows about caching: the provider's token
// counts with the hit ratio, and the client-side prompt memo.
type CacheReport struct {
	Usage llm.Usage
	// HitRatio is read / (input + write + read): the share of prompt
	// tokens the provider read from its cache.
	HitRatio float64
	Memo     Stats
}

// NewCacheReport builds the report from a session's usage totals and the
// prompt builder's memo counts.
func NewCacheReport(u llm.Usage, memo Stats) CacheReport {
	return CacheReport{Usage: u, HitRatio: u.HitRatio(), Memo: memo}
}

// PromptTokens is every prompt token sent: uncached input, cache writes
// and cache reads.
func (r CacheReport) PromptTokens() int {
	return r.Usage.InputTokens + r.Usage.CacheWriteTokens + r.Usage.CacheReadTokens
}

// Lines renders the report for /cost.
func (r CacheReport) Lines() []string {
	u := r.Usage
	return []string{
		fmt.Sprintf("prompt tokens: %s (uncached %s, cache write %s, cache read %s); output %s",
			thousands(r.PromptTokens()), thousands(u.InputTokens), thousands(u.CacheWriteTokens), thousands(u.CacheReadTokens), thousands(u.OutputTokens)),
		fmt.Sprintf("cache hit ratio: %.1f%% of prompt tokens read from cache", 100*r.HitRatio),
		fmt.Sprintf("prompt memo: %s, %s (%s and %s)",
			count(r.Memo.Hits, "hit", "hits"), count(r.Memo.Misses, "miss", "misses"),
			count(r.Memo.StableRenders, "stable re-render", "stable re-renders"),
			count(r.Memo.VolatileRenders, "volatile re-render", "volatile re-renders")),
	}
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// count writes n and the noun that agrees with it: "1 miss", "2 misses".
func count(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatUint(n, 10) + " " + many
}
