package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// The session's slash commands are offered to the editor; a prompt that
// names one runs it as a command (not as a turn to the model), answers when
// its result arrives, and waits for the turn a prompt-producing command
// queues. A prompt that starts with a path stays a prompt.
func TestSlashCommandsRunFromTheEditor(t *testing.T) {
	cwd := t.TempDir()
	s := newScripted(protocol.SessionEvent{Cwd: cwd, Agent: "default"})
	s.emit(protocol.CommandsEvent{Commands: []protocol.CommandInfo{
		{Name: "cost", Summary: "what the session cost", Immediate: true},
		{Name: "review", Args: "[focus]", Summary: "review the change"},
	}})
	w := connect(t, openerOf(s))
	sess := w.open(t, cwd)
	ctx := t.Context()

	offered := w.client.waitFor(0, func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil }).AvailableCommandsUpdate
	if len(offered.AvailableCommands) != 2 || offered.AvailableCommands[0].Name != "cost" ||
		offered.AvailableCommands[1].Input == nil || offered.AvailableCommands[1].Input.Unstructured.Hint != "[focus]" {
		t.Fatalf("offered %+v", offered.AvailableCommands)
	}

	// A command that only shows something: its output is the answer.
	mark := len(w.client.seen())
	got := w.promptAsync(ctx, sess.SessionId, "/cost")
	if op := next[protocol.Command](t, s); op.Line != "/cost" {
		t.Fatalf("command op %+v", op)
	}
	s.emit(protocol.CommandResultEvent{Op: "op", Command: "cost", Output: "$0.12 this session", Line: "/cost"})
	if r := <-got; r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt answered %+v, %v", r.resp, r.err)
	}
	msg := w.client.waitFor(mark, func(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
	if text := msg.AgentMessageChunk.Content.Text; text == nil || text.Text == "" {
		t.Fatalf("no command output shown: %+v", msg)
	}

	// A command that queues a turn: the prompt ends with that turn.
	got = w.promptAsync(ctx, sess.SessionId, "/review the parser")
	if op := next[protocol.Command](t, s); op.Line != "/review the parser" {
		t.Fatalf("command op %+v", op)
	}
	s.emit(protocol.CommandResultEvent{Op: "op", Command: "review", Line: "/review the parser", Turn: true})
	select {
	case r := <-got:
		t.Fatalf("answered before the command's turn ran: %+v, %v", r.resp, r.err)
	default:
	}
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "Review the change, focusing on the parser."},
		protocol.TextEvent{Text: "looks fine"},
		protocol.DoneEvent{Usage: &protocol.Usage{InputTokens: 3, OutputTokens: 2}, Reason: protocol.StopEnd})
	if r := <-got; r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn || r.resp.Usage == nil {
		t.Fatalf("prompt answered %+v, %v", r.resp, r.err)
	}

	// A path is not a command.
	got = w.promptAsync(ctx, sess.SessionId, "/etc/hosts looks wrong")
	if op := next[protocol.UserTurn](t, s); op.Text != "/etc/hosts looks wrong" {
		t.Fatalf("turn op %+v", op)
	}
	s.emit(protocol.TurnStartEvent{Turn: 2, Text: "/etc/hosts looks wrong"}, protocol.DoneEvent{Reason: protocol.StopEnd})
	if r := <-got; r.err != nil {
		t.Fatal(r.err)
	}
}

// A turn ended by the step cap or a spend ceiling answers the prompt with
// max_turn_requests, and one the repeat guard ended with refusal, so the
// editor can tell them from a finished answer.
func TestACeilingEndsThePromptWithMaxTurnRequests(t *testing.T) {
	cwd := t.TempDir()
	s := newScripted(protocol.SessionEvent{Cwd: cwd, Agent: "default"})
	w := connect(t, openerOf(s))
	sess := w.open(t, cwd)
	for i, reason := range []protocol.StopReason{protocol.StopStepLimit, protocol.StopSpendLimit, protocol.StopEnd, protocol.StopRefused} {
		got := w.promptAsync(t.Context(), sess.SessionId, "go on")
		next[protocol.UserTurn](t, s)
		s.emit(protocol.TurnStartEvent{Turn: i + 1, Text: "go on"}, protocol.DoneEvent{Reason: reason})
		want := sdk.StopReasonMaxTurnRequests
		switch reason {
		case protocol.StopEnd:
			want = sdk.StopReasonEndTurn
		case protocol.StopRefused:
			want = sdk.StopReasonRefusal
		}
		if r := <-got; r.err != nil || r.resp.StopReason != want {
			t.Fatalf("%s: answered %+v, %v; want %s", reason, r.resp, r.err, want)
		}
	}
}
