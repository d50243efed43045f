package agent

import (
	"encoding/json"
	"sync"
)

// repeatThreshold is the identical call that is asked about anyway: the
// third one in a turn usually means the model is looping.
const repeatThreshold = 3

// RepeatGuard counts identical calls (tool plus exact input) within a turn.
type RepeatGuard struct {
	mu     sync.Mutex
	counts map[string]int
}

// NewRepeatGuard returns an empty guard.
func NewRepeatGuard() *RepeatGuard { return &RepeatGuard{counts: map[string]int{}} }

// Reset clears the counts at the start of a turn.
func (g *RepeatGuard) Reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.counts)
}

// Note records a call and reports whether it has now been made
// repeatThreshold times or more this turn.
func (g *RepeatGuard) Note(tool string, input json.RawMessage) bool {
	if g == nil {
		return false
	}
	key := tool + "\x00" + string(input)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.counts[key]++
	return g.counts[key] >= repeatThreshold
}
