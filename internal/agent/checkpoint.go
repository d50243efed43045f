package agent

import (
	"context"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// beforeChange has the hooks hear of the turn's first call that may
// change the workspace (the checkpoint before a change).
func (t *turn) beforeChange(info *tool.Info) {
	if t.checkpointed || !(info.Effect.Mutating() || info.Effect == tool.Delegates) {
		return
	}
	t.checkpointed = true
	for _, n := range t.s.cfg.Hooks.BeforeChange(context.WithoutCancel(t.ctx), t.s.ID()) {
		t.emit(protocol.NoticeEvent{Text: n})
	}
}

// messageAt is the conversation's message at i, nil past its end.
func (s *session) messageAt(i int) *llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.history) {
		return nil
	}
	m := s.history[i]
	return &m
}

// historyLen is the length of the stored conversation.
func (s *session) historyLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.history)
}
