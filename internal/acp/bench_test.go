package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// BenchmarkPromptRoundTrip measures one prompt over the wire: the turn
// streams 100 text chunks and a tool call with 20 output chunks, and the
// editor receives every update before the answer.
func BenchmarkPromptRoundTrip(b *testing.B) {
	s := newScripted(sessionEvent(b.TempDir()))
	w := connect(b, openerOf(s))
	sess, err := w.NewSession(b.Context(), sdk.NewSessionRequest{Cwd: b.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		b.Fatal(err)
	}
	go playTurns(s)
	for b.Loop() {
		r, err := w.Prompt(b.Context(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		if err != nil || r.StopReason != sdk.StopReasonEndTurn {
			b.Fatal(r, err)
		}
	}
}

// playTurns answers every user turn with a scripted one until shutdown.
func playTurns(s *scripted) {
	for op := range s.ops {
		switch op.(type) {
		case protocol.UserTurn:
			s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"})
			for range 100 {
				s.emit(protocol.TextEvent{Text: "some words of the answer "})
			}
			s.emit(protocol.ToolCallEvent{ID: "c1", Name: "bash", Input: []byte(`{"command":"go test ./..."}`), Kind: protocol.KindExecute, Title: "go test ./..."})
			for range 20 {
				s.emit(protocol.ToolOutputEvent{ID: "c1", Chunk: "ok  \tgithub.com/x/y\t0.01s\n"})
			}
			s.emit(protocol.ToolResultEvent{ID: "c1", Name: "bash", Output: "PASS"}, protocol.DoneEvent{})
		case protocol.Shutdown:
			return
		}
	}
}
