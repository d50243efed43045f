package agent

import "github.com/shiro-neko/shiro/internal/tool"

// loadOnDemand loads an on-demand tool the model called by name without
// searching for it first (tool_search's description lists the names), if
// the session would offer it once loaded. The call then runs, and the
// tool is offered from the next step on, as if it had been searched for.
func (t *turn) loadOnDemand(info *tool.Info) bool {
	f := t.s.filter(t.variant)
	if !info.OnDemand || f.Demand == nil {
		return false
	}
	all := f
	all.Demand = nil
	if !all.Offers(info) {
		return false
	}
	f.Demand.Load(info.Name)
	return true
}
