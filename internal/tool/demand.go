package tool

import (
	"slices"
	"sync"
)

// Demand is the set of on-demand tools (Info.OnDemand) one session has
// loaded. A session's first request leaves those tools out; the tool that
// loads them (Info.Loads), or a call by name, adds them here, and from the
// next step on the session offers them like any other. Only loading ever
// happens, so the tool list of a session only grows, and in load order:
// what a request sent before stays a prefix of what later ones send.
type Demand struct {
	mu    sync.Mutex
	names []string
}

// NewDemand returns an empty set: every on-demand tool withheld.
func NewDemand() *Demand { return &Demand{} }

// Load adds names and returns those that were not loaded before.
func (d *Demand) Load(names ...string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var added []string
	for _, n := range names {
		if !slices.Contains(d.names, n) {
			d.names = append(d.names, n)
			added = append(added, n)
		}
	}
	return added
}

// Has reports whether name was loaded.
func (d *Demand) Has(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.names, name)
}

// Names returns the loaded names in load order.
func (d *Demand) Names() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.names)
}
