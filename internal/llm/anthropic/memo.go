package anthropic

import (
	"slices"

	"github.com/shiro-neko/shiro/internal/llm"
)

// staticMemo keeps the encoding of the last system prompt and tool list
// sent: both are the same from one step to the next.
type staticMemo struct {
	system llm.LastEncoding[markedSystem]
	tools  llm.LastEncoding[[]llm.ToolSpec]
}

// markedSystem is the system prompt with the breakpoints it carries.
type markedSystem struct {
	blocks []llm.SystemBlock
	marks  []bool
}

func (m *staticMemo) encodeSystem(blocks []llm.SystemBlock, marks []bool) ([]byte, error) {
	return m.system.Get(markedSystem{blocks, marks},
		func(a, b markedSystem) bool {
			return slices.Equal(a.blocks, b.blocks) && slices.Equal(a.marks, b.marks)
		},
		func(s markedSystem) markedSystem { return markedSystem{slices.Clone(s.blocks), slices.Clone(s.marks)} },
		func(s markedSystem) ([]byte, error) { return encodeSystem(s.blocks, s.marks) })
}

func (m *staticMemo) encodeTools(specs []llm.ToolSpec) ([]byte, error) {
	return m.tools.Get(specs, llm.SameTools, llm.CloneTools, encodeTools)
}
