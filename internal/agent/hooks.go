package agent

import (
	"context"
	"errors"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// TurnHooks is the owner's part in a session's turns, one method per
// stage in the order a turn meets them, called on the turn's goroutine
// (Recorded also between turns). Embed NoHooks for some stages only;
// compose with Chain.
type TurnHooks interface {
	// Setup runs at the turn boundary, before the settings are read, so
	// reloaded plugins, new tools or a new provider never apply mid-turn.
	Setup(ctx context.Context) TurnSetup
	// Expand rewrites the person's input before it enters the history
	// (@mentions); the turn-start event keeps what was typed.
	Expand(ctx context.Context, in TurnInput) TurnInput
	// BeforeChange runs before a turn's first call that writes, runs
	// commands or delegates (the checkpoint).
	BeforeChange(ctx context.Context, sessionID string) []string
	// Recorded hears each change to the stored conversation as it
	// happens, so a killed process loses at most the step in flight. An
	// error is told once; the session goes on in memory.
	Recorded(ctx context.Context, r Record) error
	// Ended runs however the turn ends. When e.MayContinue, an Ending's
	// Continue sends the model back to work in the same turn, stored as
	// the person's message.
	Ended(ctx context.Context, e TurnEnd) Ending
}

// TurnSetup is what Setup hands the next turn; nil and zero keep what is.
// Gate comes after reloaded extensions, Tools when MCP servers' tools
// changed; Commands says the slash commands changed (custom command files,
// MCP prompts), so the session lists them again. A new Provider (/provider)
// replaces the session's, with its preset's name and model, and the
// session describes itself again.
type TurnSetup struct {
	Gate         *Gate
	Tools        *tool.Registry
	Commands     bool
	Notices      []string
	Provider     llm.Provider
	ProviderName string
	Model        string
}

// TurnInput is the person's input on its way into the history: the text
// the model reads, its images (submitted or @attached), notices to show
// first, and a Refusal that stops the turn before anything is sent,
// shown as its error.
type TurnInput struct {
	Text    string
	Images  []llm.Image
	Notices []string
	Refusal string
}

// TurnEnd describes a turn as it ends.
type TurnEnd struct {
	TurnSummary
	// Seq numbers the session's turns; Typed is what the person typed.
	Seq   int
	Typed string
	// HistoryLen is the history's length before the turn, and Opening the
	// turn's first message, which an undo expects to find there (a
	// compaction or /clear since moves it).
	HistoryLen int
	Opening    *llm.Message
	Stop       protocol.StopReason
	// Continued counts the times a hook sent this turn back to work
	// (Claude Code's stop_hook_active); MayContinue says the model ended
	// the turn and it may be sent back again (at most MaxContinues).
	Continued   int
	MayContinue bool
}

// Ending is what a hook makes of a turn's end: notices, and the message
// that sends the model back to work, when the end allows it.
type Ending struct {
	Notices  []string
	Continue string
}

// Record is one change to the stored conversation: Step, Replaced,
// Compacted or Charged. Its Head names the conversation, provider preset
// and model, so a recorder needs nothing of the session.
type Record interface {
	Conversation() Head
	record()
}

// Head names a record's conversation and the provider preset and model in
// use at the time.
type Head struct {
	SessionID string
	Provider  string
	Model     string
}

// Conversation implements Record for every record that embeds a Head.
func (h Head) Conversation() Head { return h }

// Step is a message that entered the history, with the model call's model
// and usage when one produced it.
type Step struct {
	Head
	Message   llm.Message
	CallModel string
	Usage     llm.Usage
}

// Replaced is a history replaced by another (/clear, /undo).
type Replaced struct {
	Head
	History []llm.Message
}

// Compacted is a history compacted into a summary; the old messages stay
// stored.
type Compacted struct {
	Head
	Compaction
}

// Charged is the usage of a call no stored message carries (a subagent's
// run, /memory's prompt), so the stored total counts what the session's does.
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

// Setup implements TurnHooks, as do the four methods below.
func (NoHooks) Setup(context.Context) TurnSetup                  { return TurnSetup{} }
func (NoHooks) Expand(_ context.Context, in TurnInput) TurnInput { return in }
func (NoHooks) BeforeChange(context.Context, string) []string    { return nil }
func (NoHooks) Recorded(context.Context, Record) error           { return nil }
func (NoHooks) Ended(context.Context, TurnEnd) Ending            { return Ending{} }

// Chain composes hooks in the order given, skipping nil ones. Every one
// runs each stage (a later gate, registry or provider wins; notices and
// errors add up), except that Expand stops at the first refusal and Ended
// at the first hook that sends the model back: the ones after it hear the
// turn's next ending instead. So hooks that may continue a turn come
// first, and those that only watch come after, hearing each end once.
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
		out.Commands = out.Commands || s.Commands
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
