package agent

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Spend is what a session may spend and how it prices what it used.
type Spend struct {
	// Cost prices usage of a model reached through a provider preset;
	// known is false when the model has no price. Nil prices nothing.
	Cost func(provider, model string, u llm.Usage) (usd float64, known bool)
	// Session (config maxSpendUsd) and Turn (maxSpendPerTurn) are ceilings
	// in US dollars; zero is none. They count subagents too.
	Session float64
	Turn    float64
	// ConfigFile is the file the stop message tells the person to edit;
	// empty says "config.json".
	ConfigFile string
}

// The config keys of the two ceilings, as the stop message names them.
const (
	CeilingSession = "maxSpendUsd"
	CeilingTurn    = "maxSpendPerTurn"
)

// Spending is what a session has spent so far, for /cost.
type Spending struct {
	// Session is the priced spend of the whole session, subagents
	// included; Turn that of the running (or last) turn; Subagents the
	// subagents' share of Session.
	Session, Turn, Subagents float64
	// Tokens are those of every call Session counts, subagents included:
	// what the usage events report.
	Tokens llm.Usage
	// Unpriced names the models used without a known price: their tokens
	// are not in the sums above.
	Unpriced []string
	// Models is the session's own usage by model (its steps, compactions
	// and one-off prompts), sorted by name.
	Models []ModelUsage
}

// ledger keeps a session's spend; it is guarded by the session's mutex.
type ledger struct {
	// byModel is the usage of the session's own model calls (its steps and
	// side calls), subByModel that of its subagents.
	byModel, subByModel      map[string]llm.Usage
	session, turn, subagents float64
	unpriced                 map[string]bool
	// total is the tokens of every call, subagents included; priced is
	// set once a call had a price, so $0 is said only when it is known.
	total  llm.Usage
	priced bool
	// last is the usage of the latest main request, from which the next
	// one's cost is estimated: it carries at least the same prompt.
	last      llm.Usage
	lastModel string
	// turnUnpriced is set when a request of the running turn had no price.
	turnUnpriced bool
	// warned is set once the person heard that a ceiling cannot be kept.
	warned bool
}

// callKind says whose model call is charged.
type callKind uint8

const (
	// stepCall is a step of the conversation: the next request is
	// estimated from it.
	stepCall callKind = iota
	// sideCall is a call the session makes beside its steps (/memory's
	// prompt): the next request is not estimated from it.
	sideCall
	// subagentCall is a subagent's whole usage, charged when it ends.
	subagentCall
	// summaryCall is a compaction's summary: a side call whose usage the
	// recorder keeps with the compaction's marker.
	summaryCall
)

// charge counts one model call's usage in the session's tokens, prices it
// into the ledger and reports the new total: every front end shows that
// total rather than summing turns, so a call outside a turn (/compact,
// /memory) or in an interrupted one counts everywhere alike.
func (s *session) charge(model string, u llm.Usage, kind callKind) {
	s.mu.Lock()
	s.chargeLocked(model, u, kind)
	ev := s.spend.usageEvent()
	s.mu.Unlock()
	s.out.emit(ev)
	if kind == sideCall || kind == subagentCall {
		s.record(Charged{Head: s.head(), CallModel: model, Usage: u})
	}
}

// usageEvent is the ledger's total as an event.
func (l *ledger) usageEvent() protocol.UsageEvent {
	ev := protocol.UsageEvent{Usage: protocol.Usage(l.total)}
	if l.priced {
		ev.CostUSD = new(l.session)
	}
	ev.Unpriced = l.unpricedModels()
	return ev
}

// unpricedModels are the models used without a price, sorted.
func (l *ledger) unpricedModels() []string {
	var out []string
	for m := range l.unpriced {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// chargeLocked is charge without the event; the caller holds s.mu.
func (s *session) chargeLocked(model string, u llm.Usage, kind callKind) {
	l := &s.spend
	l.total.Add(u)
	if kind == subagentCall {
		l.subByModel = addUsage(l.subByModel, model, u)
	} else {
		s.usage.Add(u)
		l.byModel = addUsage(l.byModel, model, u)
	}
	if kind == stepCall {
		l.last, l.lastModel = u, model
	}
	usd, known := s.price(model, u)
	if !known {
		if l.unpriced == nil {
			l.unpriced = map[string]bool{}
		}
		l.unpriced[model] = true
		l.turnUnpriced = true
		return
	}
	l.priced = true
	l.session += usd
	l.turn += usd
	if kind == subagentCall {
		l.subagents += usd
	}
}

// addUsage adds u to model's total in m, making m if it is nil.
func addUsage(m map[string]llm.Usage, model string, u llm.Usage) map[string]llm.Usage {
	if m == nil {
		m = map[string]llm.Usage{}
	}
	total := m[model]
	total.Add(u)
	m[model] = total
	return m
}

// sortedUsage is m as a list sorted by model name.
func sortedUsage(m map[string]llm.Usage) []ModelUsage {
	out := make([]ModelUsage, 0, len(m))
	for model, u := range m {
		out = append(out, ModelUsage{Model: model, Usage: u})
	}
	slices.SortFunc(out, func(a, b ModelUsage) int { return cmp.Compare(a.Model, b.Model) })
	return out
}

// price prices usage on the session's provider; the caller holds s.mu.
func (s *session) price(model string, u llm.Usage) (float64, bool) {
	if s.cfg.Spend.Cost == nil {
		return 0, false
	}
	return s.cfg.Spend.Cost(s.provName, model, u)
}

// Spending returns what the session has spent so far.
func (s *session) Spending() Spending {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.spend
	out := Spending{Session: l.session, Turn: l.turn, Subagents: l.subagents, Tokens: l.total, Unpriced: l.unpricedModels()}
	out.Models = sortedUsage(l.byModel)
	return out
}

// startTurnSpend opens a new turn's budget.
func (s *session) startTurnSpend() {
	s.mu.Lock()
	s.spend.turn, s.spend.turnUnpriced = 0, false
	s.mu.Unlock()
}

// turnCost is the spend of the running turn; known is false when any of
// its requests had no price.
func (s *session) turnCost() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spend.turn, !s.spend.turnUnpriced
}

// overCeiling reports whether the next request would pass a spend ceiling,
// and if so says which and stops the turn. The next request is estimated
// to cost what the last one did, with the last answer now part of its
// prompt: it carries at least that history.
func (t *turn) overCeiling() bool {
	s := t.s
	sp := s.cfg.Spend
	if sp.Session <= 0 && sp.Turn <= 0 {
		return false
	}
	s.mu.Lock()
	l := &s.spend
	estimate, known := s.price(t.model, nextUsage(l.last))
	spentSession, spentTurn := l.session, l.turn
	warn := !known && !l.warned
	if warn {
		l.warned = true
	}
	s.mu.Unlock()
	if !known {
		if warn {
			t.emit(protocol.NoticeEvent{Text: fmt.Sprintf("spend ceilings are not kept for %s: it has no price in the model catalogue. Give it one under \"models\" in config.json (see docs/cost.md).", t.model)})
		}
		return false
	}
	file := cmp.Or(sp.ConfigFile, "config.json")
	var msg string
	switch {
	case sp.Session > 0 && (spentSession >= sp.Session || spentSession+estimate > sp.Session):
		t.ceiling = CeilingSession
		msg = fmt.Sprintf("spend ceiling reached: this session has spent %s and its next request would cost about %s, past %s (%s). Raise %q in %s to go on.",
			USD(spentSession), USD(estimate), CeilingSession, USD(sp.Session), CeilingSession, file)
	case sp.Turn > 0 && (spentTurn >= sp.Turn || spentTurn+estimate > sp.Turn):
		t.ceiling = CeilingTurn
		msg = fmt.Sprintf("spend ceiling reached: this turn has spent %s and its next request would cost about %s, past %s (%s). Send another message to go on with a new turn, or raise %q in %s.",
			USD(spentTurn), USD(estimate), CeilingTurn, USD(sp.Turn), CeilingTurn, file)
	default:
		return false
	}
	t.stop = protocol.StopSpendLimit
	t.emit(protocol.NoticeEvent{Text: msg})
	return true
}

// nextUsage estimates the next request's usage from the last one's: it
// sends the same prompt with the last answer added. What the last request
// read from or wrote to the provider's cache is read back from it (a
// write pays its surcharge once, and the prefix it stored is then read at
// a fraction of the input price); the tokens that were not cached, and the
// answer, are new: written to the cache when the provider writes to it
// (Anthropic's breakpoints move to the newest message), else plain input.
// Pricing the prefix as another write would make a cached session look
// ten times dearer than it is, and stop it far below its ceiling.
func nextUsage(last llm.Usage) llm.Usage {
	fresh := last.InputTokens + last.OutputTokens
	next := llm.Usage{CacheReadTokens: last.CacheReadTokens + last.CacheWriteTokens}
	if last.CacheWriteTokens > 0 {
		next.CacheWriteTokens = fresh
	} else {
		next.InputTokens = fresh
	}
	return next
}

// childSpend is what a delegating call lends its children: the same
// prices on the parent's provider, and what is left of each ceiling, so
// a subagent stops where its parent would.
func (s *session) childSpend() Spend {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.cfg.Spend
	provider, cost := s.provName, sp.Cost
	child := Spend{Session: remaining(sp.Session, s.spend.session), Turn: remaining(sp.Turn, s.spend.turn), ConfigFile: sp.ConfigFile}
	if cost != nil {
		child.Cost = func(_, model string, u llm.Usage) (float64, bool) { return cost(provider, model, u) }
	}
	return child
}

// remaining is what is left of a ceiling: zero stays "none", and a ceiling
// already reached leaves a sliver, so the child stops at once.
func remaining(ceiling, spent float64) float64 {
	if ceiling <= 0 {
		return 0
	}
	return max(ceiling-spent, 1e-9)
}

// USD formats dollars for people (protocol.USD).
func USD(v float64) string { return protocol.USD(v) }
