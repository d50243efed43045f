package agent

import (
	"context"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Checkpointer takes the workspace's checkpoints at a turn's edges, for
// /undo and /changes: one before the turn's first call that may change
// anything, one when the turn ends.
type Checkpointer interface {
	// BeforeChange runs before the first call of a turn whose tool writes,
	// runs commands or delegates; it may return notices to show.
	BeforeChange(ctx context.Context, sessionID string) []string
	// TurnEnded runs when every turn ends, changing or not, interrupted or
	// not; it may return notices to show.
	TurnEnded(ctx context.Context, t TurnMark) []string
}

// TurnMark is a turn as the checkpointer journals it.
type TurnMark struct {
	SessionID string
	Seq       int
	// Text is what the person typed.
	Text string
	// HistoryLen is how many messages the history held before the turn:
	// undoing the turn's conversation shortens it to that.
	HistoryLen int
	// Opening is the turn's first message (the person's), which an undo
	// finds at HistoryLen while the conversation still holds the turn
	// where it began; a compaction or /clear since moves or removes it.
	Opening     *llm.Message
	RanCommands bool
	Interrupted bool
}

// beforeChange has the checkpoint taken before the turn's first call
// that may change the workspace.
func (t *turn) beforeChange(info *tool.Info) {
	cp := t.s.cfg.Checkpoints
	if cp == nil || t.checkpointed || !(info.Effect.Mutating() || info.Effect == tool.Delegates) {
		return
	}
	t.checkpointed = true
	for _, n := range cp.BeforeChange(context.WithoutCancel(t.ctx), t.s.ID()) {
		t.emit(protocol.NoticeEvent{Text: n})
	}
}

// checkpointEnd has the turn journaled when it ends.
func (t *turn) checkpointEnd() {
	cp := t.s.cfg.Checkpoints
	if cp == nil {
		return
	}
	mark := TurnMark{SessionID: t.s.ID(), Seq: t.seq, Text: t.typed, HistoryLen: t.historyStart,
		Opening: t.s.messageAt(t.historyStart), RanCommands: t.ranCommands, Interrupted: t.interrupted}
	for _, n := range cp.TurnEnded(context.WithoutCancel(t.ctx), mark) {
		t.emit(protocol.NoticeEvent{Text: n})
	}
}

// messageAt is the conversation's message at i, nil past its end.
func (s *Session) messageAt(i int) *llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.history) {
		return nil
	}
	m := s.history[i]
	return &m
}

// historyLen is the length of the stored conversation.
func (s *Session) historyLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.history)
}
