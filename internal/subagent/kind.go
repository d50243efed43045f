package subagent

import (
	"slices"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Kind is what a subagent is for; it decides its tools, its prompt and its
// model.
type Kind string

const (
	// Explore finds and reads code and reports where things are. It runs on
	// the configured subagent model, which may be smaller and cheaper.
	Explore Kind = "explore"
	// Review reads a change or some code and reports its defects.
	Review Kind = "review"
	// Worker makes a self-contained change. Every call it makes that needs
	// approval goes to the person through the parent's prompt.
	Worker Kind = "worker"
)

// MaxSteps is the most model calls one subagent may make.
const MaxSteps = 20

// readTools are offered to every kind: reading and searching the workspace
// and the read-only git tools. The read-only nav tools join them when they
// are registered (see allowedTools).
var readTools = []string{
	"read_file", "read_many_files", "glob", "grep", "list_dir",
	"git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch",
}

// writeTools are what a worker adds to the read tools.
var writeTools = []string{"write_file", "edit_file", "multi_edit", "apply_patch", "bash"}

// writes reports whether a kind may change the workspace.
func (k Kind) writes() bool { return k == Worker }

// thinking is how hard each kind thinks: finding things needs little
// deliberation, judging code needs the most.
func (k Kind) thinking() llm.Thinking {
	switch k {
	case Explore:
		return llm.ThinkLow
	case Review:
		return llm.ThinkHigh
	}
	return llm.ThinkMedium
}

// allowedTools lists the tool names a kind is offered from reg: the read
// tools, every registered read-only nav tool, and for a worker the write
// tools. Names that are not registered simply match nothing.
func allowedTools(k Kind, reg *tools.Registry) []string {
	names := slices.Clone(readTools)
	for _, name := range reg.Names() {
		t, _ := reg.Get(name)
		if m := t.Meta(); m.Set == tools.SetNav && !m.Mutating && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if k.writes() {
		names = append(names, writeTools...)
	}
	return names
}
