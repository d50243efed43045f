package agent

import (
	"encoding/json"
	"sync"
)

// repeatThreshold is the identical call that is asked about anyway: the
// third one in a turn usually means the model is looping. The third
// identical refused call ends the turn: asking cannot help there, since
// nothing the person says lets a refused call through.
const repeatThreshold = 3

// RepeatGuard counts identical calls (tool plus exact input) within a turn,
// and apart from them the identical calls that were refused.
type RepeatGuard struct {
	mu      sync.Mutex
	counts  map[string]int
	refused map[string]int
}

// NewRepeatGuard returns an empty guard.
func NewRepeatGuard() *RepeatGuard {
	return &RepeatGuard{counts: map[string]int{}, refused: map[string]int{}}
}

// Reset clears the counts at the start of a turn.
func (g *RepeatGuard) Reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.counts)
	clear(g.refused)
}

// Note records a call and reports whether it has now been made
// repeatThreshold times or more this turn.
func (g *RepeatGuard) Note(tool string, input json.RawMessage) bool {
	return g.bump(func(g *RepeatGuard) map[string]int { return g.counts }, tool, input)
}

// Refused records a refusal of a call and reports whether the identical call
// has now been refused repeatThreshold times or more this turn.
func (g *RepeatGuard) Refused(tool string, input json.RawMessage) bool {
	return g.bump(func(g *RepeatGuard) map[string]int { return g.refused }, tool, input)
}

func (g *RepeatGuard) bump(which func(*RepeatGuard) map[string]int, tool string, input json.RawMessage) bool {
	if g == nil {
		return false
	}
	key := tool + "\x00" + string(input)
	g.mu.Lock()
	defer g.mu.Unlock()
	m := which(g)
	m[key]++
	return m[key] >= repeatThreshold
}
