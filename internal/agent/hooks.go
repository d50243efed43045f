package agent

import (
	"context"
	"errors"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// TurnHooks is how the owner of a session takes part in its turns: one
// method per stage, in the order a turn meets them. The session calls them
// on the turn's goroutine (Recorded also from /clear, /compact and side
// calls, between turns). Embed NoHooks to take part in some stages only;
// compose several with Chain.
type TurnHooks interface {
	// Setup runs as a turn starts, before its settings are read: the
	// turn boundary where reloaded plugins, changed tools and a new
	// provider take effect, never mid-turn.
	Setup(ctx context.Context) TurnSetup
	// Expand rewrites the person's input before it enters the history
	// (@mentions attach files and MCP resources); the turn-start event
	// keeps what the person typed. A Refusal stops the turn before
	// anything is sent.
	Expand(ctx context.Context, in TurnInput) TurnInput
	// BeforeChange runs before the first call of a turn whose tool
	// writes, runs commands or delegates (the checkpoint before a change);
	// it may return notices to show.
	BeforeChange(ctx context.Context, sessionID string) []string
	// Recorded hears every change to the stored conversation as it
	// happens: a Step as each message enters the history, before the next
	// step starts, so a process killed at any moment loses at most the
	// step in flight; a Replaced or Compacted history; the Charged usage
	// of calls no message carries. An error is shown once as a notice; the
	// session goes on in memory.
	Recorded(ctx context.Context, r Record) error
	// Ended runs when the turn ends, however it ends. When the model
	// ended it and e.MayContinue is set, an Ending with Continue sends the
	// model back to work in the same turn: the text is stored as the
	// person's message and shown as a notice.
	Ended(ctx context.Context, e TurnEnd) Ending
}

// TurnSetup is what Setup hands the next turn: a new gate when extensions
// were reloaded (nil keeps the current one), a new tool registry when the
// tools changed (MCP servers connected, or one's tool list changed; nil
// keeps the current one) and notices to show.
//
// A new Provider (chosen with /provider) replaces the session's from that
// turn on, with the name of the preset it came from and the model to use
// with it; the session then describes itself again.
type TurnSetup struct {
	Gate         *Gate
	Tools        *tool.Registry
	Notices      []string
	Provider     llm.Provider
	ProviderName string
	Model        string
}

// TurnInput is the person's input on its way into the history.
type TurnInput struct {
	// Text is what the model will read.
	Text string
	// Images go with the turn's message (submitted, or attached with
	// @shot.png).
	Images []llm.Image
	// Notices are shown before the turn starts.
	Notices []string
	// Refusal, when set, says why the turn does not run; the person sees
	// it as the turn's error.
	Refusal string
}

// TurnEnd describes a turn as it ends.
type TurnEnd struct {
	TurnSummary
	// Seq numbers the session's turns; Typed is what the person typed.
	Seq   int
	Typed string
	// HistoryLen is how many messages the history held before the turn:
	// undoing the turn's conversation shortens it to that.
	HistoryLen int
	// Opening is the turn's first message (the person's), which an undo
	// finds at HistoryLen while the conversation still holds the turn
	// where it began; a compaction or /clear since moves or removes it.
	Opening *llm.Message
	// Stop is why the turn ends (StopEnd when the model ended it).
	Stop protocol.StopReason
	// Continued counts the times a hook sent this turn back to work; a
	// non-zero count means this ending follows such a continuation (Claude
	// Code's stop_hook_active).
	Continued int
	// MayContinue is set when the model ended the turn itself and the
	// turn may still be sent back (at most MaxContinues times).
	MayContinue bool
}

// Ending is what a hook makes of a turn's end.
type Ending struct {
	Notices []string
	// Continue, when set and the end allows it, is the message that sends
	// the model back to work.
	Continue string
}

// Record is one change to the stored conversation: Step, Replaced,
// Compacted or Charged. Each names the conversation and the provider
// preset and model in use, so a recorder needs nothing of the session.
type Record interface {
	// Conversation is the record's Head.
	Conversation() Head
	record()
}

// Head names the conversation a record belongs to and the provider preset
// and model the session used at the time.
type Head struct {
	SessionID string
	Provider  string
	Model     string
}

// Conversation implements Record for every record that embeds a Head.
func (h Head) Conversation() Head { return h }

// Step is a message that entered the history. For a message a model call
// produced, CallModel and Usage are that call's; otherwise they are zero.
type Step struct {
	Head
	Message   llm.Message
	CallModel string
	Usage     llm.Usage
}

// Replaced is a history replaced by another (/clear empties it, /undo
// shortens it).
type Replaced struct {
	Head
	History []llm.Message
}

// Compacted is a history compacted into a summary; the messages before
// stay stored.
type Compacted struct {
	Head
	Compaction
}

// Charged is the usage of a model call no stored message carries: a
// subagent's run, a one-off prompt such as /memory's. The stored total
// then counts every call the session's own total counts.
type Charged struct {
	Head
	CallModel string
	Usage     llm.Usage
}

func (Step) record()      {}
func (Replaced) record()  {}
func (Compacted) record() {}
func (Charged) record()   {}

// NoHooks takes part in no stage; embed it to implement only some.
type NoHooks struct{}

// Setup implements TurnHooks.
func (NoHooks) Setup(context.Context) TurnSetup { return TurnSetup{} }

// Expand implements TurnHooks.
func (NoHooks) Expand(_ context.Context, in TurnInput) TurnInput { return in }

// BeforeChange implements TurnHooks.
func (NoHooks) BeforeChange(context.Context, string) []string { return nil }

// Recorded implements TurnHooks.
func (NoHooks) Recorded(context.Context, Record) error { return nil }

// Ended implements TurnHooks.
func (NoHooks) Ended(context.Context, TurnEnd) Ending { return Ending{} }

// Chain composes hooks, which run in the order given (nil ones are
// skipped):
//   - Setup: every one; a later gate, registry or provider wins, notices
//     add up;
//   - Expand: each rewrites what the one before left; the first refusal
//     stops the rest;
//   - BeforeChange and Recorded: every one; notices and errors add up;
//   - Ended: in order, until one sends the model back: the ones after it
//     hear the turn's next ending instead. So hooks that may continue a
//     turn come first, and those that only watch it end come after them,
//     hearing each turn end once.
func Chain(hooks ...TurnHooks) TurnHooks {
	var c chain
	for _, h := range hooks {
		if h != nil {
			c = append(c, h)
		}
	}
	if len(c) == 1 {
		return c[0]
	}
	return c
}

type chain []TurnHooks

func (c chain) Setup(ctx context.Context) TurnSetup {
	var out TurnSetup
	for _, h := range c {
		s := h.Setup(ctx)
		if s.Gate != nil {
			out.Gate = s.Gate
		}
		if s.Tools != nil {
			out.Tools = s.Tools
		}
		if s.Provider != nil {
			out.Provider, out.ProviderName, out.Model = s.Provider, s.ProviderName, s.Model
		}
		out.Notices = append(out.Notices, s.Notices...)
	}
	return out
}

func (c chain) Expand(ctx context.Context, in TurnInput) TurnInput {
	for _, h := range c {
		if in = h.Expand(ctx, in); in.Refusal != "" {
			break
		}
	}
	return in
}

func (c chain) BeforeChange(ctx context.Context, sessionID string) []string {
	var notices []string
	for _, h := range c {
		notices = append(notices, h.BeforeChange(ctx, sessionID)...)
	}
	return notices
}

func (c chain) Recorded(ctx context.Context, r Record) error {
	var errs []error
	for _, h := range c {
		if err := h.Recorded(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c chain) Ended(ctx context.Context, e TurnEnd) Ending {
	var out Ending
	for _, h := range c {
		end := h.Ended(ctx, e)
		out.Notices = append(out.Notices, end.Notices...)
		if e.MayContinue && end.Continue != "" {
			out.Continue = end.Continue
			break
		}
	}
	return out
}
