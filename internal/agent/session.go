// Package agent runs sessions: a front end submits ops (protocol.Op) and
// reads events (protocol.Event); a turn sends the history to the model,
// turns the streamed response into events, passes every tool call through
// the gate, runs the allowed ones and loops until the model stops. The
// terminal UI, headless mode, the ACP server and the task tool's subagents
// are all clients of the same protocol.
//
// Three seams: Session is the door clients get (ops in, events out);
// Owner, which Start returns, is the door plus the wiring, held by the
// composition root alone; TurnHooks is the owner's part in each turn's
// stages (setup, expand input, before change, recorded, ended).
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Prompter renders the system prompt for one step from live state. Stable is
// the cacheable prefix; Volatile (task list, memory, loaded skills) changes
// within a session and travels after the last cache breakpoint. appendix is
// the agent variant's own instructions.
type Prompter interface {
	Prompt(active []tool.Tool, appendix string) (stable, volatile string)
}

// TurnSummary describes a finished turn; the one summary is the tool
// package's, shared with plugins and hooks.
type TurnSummary = tool.TurnSummary

// Commander runs slash commands submitted with Command ops.
type Commander interface {
	// List is what the session announces in its CommandsEvent.
	List() []protocol.CommandInfo
	// Immediate reports whether a command line may run while a turn runs
	// (it only shows something); the others wait their place in the turn
	// queue, since they may change the conversation.
	Immediate(line string) bool
	// Run runs one command line.
	Run(ctx context.Context, line string) (CommandOutcome, error)
}

// CommandOutcome is what a command produced: output to show, choices to
// offer or a value to type, and a prompt to run as the next turn (a custom
// command that expands to a prompt, /init), on Model when it names one.
type CommandOutcome struct {
	Output  string
	Choices []protocol.Choice
	Field   *protocol.Field
	Prompt  string
	Model   string
	// Line, when set, is how the result reports the line that ran: a line
	// that carried a secret (a pasted API key) is reported without it.
	Line string
	// Change is what the command does to the conversation, nil for
	// nothing: the session makes it in the command's place in the queue,
	// before the result (also when the command failed partway), and the
	// events it causes carry the command's id.
	Change Change
}

// Change is a change a command makes to the conversation: Replace or
// Compact. A command returns it rather than making it, so the session
// stays the only writer of its history.
type Change interface{ change() }

// Replace puts History in place of the conversation (/clear, /undo).
type Replace struct{ History []llm.Message }

// Compact has the model summarise the older history, keeping Focus above
// all (/compact); a failure leaves the history as it was.
type Compact struct{ Focus string }

func (Replace) change() {}
func (Compact) change() {}

// Config assembles a session.
type Config struct {
	Provider llm.Provider
	Model    string
	// SessionID names the conversation; ProviderName is the provider's
	// preset, for the session event.
	SessionID    string
	ProviderName string
	Cwd          string // the workspace root
	Tools        *tool.Registry
	Gate         *Gate
	Prompter     Prompter
	Variant      Variant
	// Filter selects the offered tools; the variant's read-only flag and
	// the attendance apply on top.
	Filter tool.Filter
	// Attended says someone answers approvals and questions; without it
	// every ask is denied by policy and interactive tools are withheld.
	Attended bool
	// CacheSystemPrefix marks the stable system block cacheable and adds
	// the moving breakpoint on the last message (Anthropic protocol).
	CacheSystemPrefix bool
	// VolatilePlacement is where the volatile prompt goes on the wire; the
	// zero value caches most.
	VolatilePlacement VolatilePlacement
	// PruneTokens is the history size above which old tool output is
	// pruned from the copy sent (0: default).
	PruneTokens int
	// Hooks take part in every turn's stages (hooks.go), at most
	// MaxContinues times a turn sending it back (0: DefaultMaxContinues);
	// SubagentHooks in the turns of the subagents its calls start.
	Hooks         TurnHooks
	MaxContinues  int
	SubagentHooks TurnHooks
	// Commands runs slash commands; nil refuses every Command op.
	Commands Commander
	// OutputSchema is the JSON Schema every request carries and the
	// answer ending a turn must follow (headless --output-schema; the
	// front end validates).
	OutputSchema json.RawMessage
	// Subagent is the kind this session runs as (explore, review,
	// worker), empty for the main session: the gate marks its calls, so
	// the person's prompt says who asks and a denial tells it to stop.
	// Broker is then the parent's, so approvals reach its front end.
	Subagent string
	Broker   *Broker
	// SplitTurn undoes Expand for front ends: a stored prompt is shown as
	// typed with the names of what was attached, not a whole log inline.
	SplitTurn func(expanded string) (typed string, attached []string)
	// SeesImages says whether a model takes pictures (nil: all do); a
	// picture for one that does not is refused before anything is sent.
	SeesImages func(model string) bool
	// History is the conversation to continue, made valid first (see
	// ValidHistory); front ends hear it as a HistoryEvent.
	History []llm.Message
	// Spend prices usage and holds the ceilings (spend.go).
	Spend Spend
	// MaxSteps, when positive, caps every turn's steps in place of the
	// variant's own (--max-steps).
	MaxSteps int
	// ContextWindow and OutputLimit are a model's sizes in tokens from the
	// catalogue, zero when unknown; requests keep under the output limit.
	ContextWindow func(model string) int
	OutputLimit   func(model string) int
	// CompactAt is the share of the window the next request may fill
	// before the older history is compacted (0: default, 1 or more: never
	// automatically); CompactKeep is how many latest exchanges stay
	// verbatim (compact.go).
	CompactAt   float64
	CompactKeep int
	// Mode is the permission mode the session starts in (a subagent's is
	// its parent's).
	Mode permission.Mode
}

// VolatilePlacement is where the volatile part of the system prompt (task
// list, memory) travels in a request.
type VolatilePlacement int

const (
	// VolatileTail delivers it after the last cache breakpoint, on the
	// newest message, never stored in the history: its changes leave the
	// cached tools, system prompt and history intact.
	VolatileTail VolatilePlacement = iota
	// VolatileSystemBlock sends it as a second, unmarked system block
	// before the messages. Every change to it invalidates the cached
	// history; it exists to measure that placement against VolatileTail
	// (see docs/prompt-caching.md).
	VolatileSystemBlock
)

// Broker is a session's approval and question desk, lent to subagents.
type Broker = broker

// session is one conversation. Its methods are safe from any goroutine;
// clients reach it through a Session, its owner through an Owner.
type session struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	out    *outbox
	broker *broker
	gate   atomic.Pointer[Gate]
	tools  atomic.Pointer[tool.Registry]
	ops    atomic.Int64 // the last op id handed out

	mu       sync.Mutex
	id       string // the conversation's id: cfg.SessionID, or the one resumed
	provider llm.Provider
	provName string
	model    string
	variant  Variant
	mode     permission.Mode
	pending  *protocol.Configure // settings waiting for the turn to end
	// pendingOp is the id of the Configure op that last changed pending.
	pendingOp string
	history   []llm.Message
	callIDs   map[string]bool // every tool-call id the session used (callids.go)
	sizes     sizeCache
	pruned    pruneMemo
	usage     llm.Usage
	spend     ledger
	repeats   *RepeatGuard
	current   *currentCall // the tool call being decided or run
	queue     []queued     // turns and commands waiting for the running turn
	running   bool         // the turn runner goroutine is active
	inTurn    bool         // a turn (not a queued command) is running
	turnStop  context.CancelFunc
	turnSeq   int
	direct    int  // calls made for the session itself (RunCall), for their ids
	showing   int  // commands running beside the queue (immediate ones)
	closing   bool // Shutdown was submitted
	closed    bool // the outbox is closed
	runner    sync.WaitGroup
	// recordFailing is set while the recorder fails, so that the person
	// hears of it once.
	recordFailing bool
}

// Start builds a session and starts serving it: the first event is a
// SessionEvent. Cancelling ctx stops the running turn and ends the
// session as Shutdown would. Read Events until it is closed. The Owner it
// returns is the wiring; hand clients its Door.
func Start(ctx context.Context, cfg Config) (*Owner, error) {
	if cfg.Provider == nil || cfg.Tools == nil || cfg.Gate == nil || cfg.Prompter == nil {
		return nil, errors.New("agent: a session needs a provider, tools, a gate and a prompter")
	}
	if cfg.Variant.Name == "" {
		cfg.Variant = DefaultVariant()
	}
	if cfg.PruneTokens <= 0 {
		cfg.PruneTokens = defaultPruneTokens
	}
	if cfg.Hooks == nil {
		cfg.Hooks = NoHooks{}
	}
	if cfg.MaxContinues <= 0 {
		cfg.MaxContinues = DefaultMaxContinues
	}
	s := &session{cfg: cfg, out: newOutbox(), id: cfg.SessionID, provider: cfg.Provider, provName: cfg.ProviderName, model: cfg.Model,
		variant: cfg.Variant, mode: cfg.Mode, repeats: NewRepeatGuard()}
	s.setHistoryLocked(ValidHistory(cfg.History))
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.gate.Store(cfg.Gate)
	s.tools.Store(cfg.Tools)
	if cfg.Broker != nil {
		s.broker = cfg.Broker
	} else {
		s.broker = newBroker(s.out.emit, cfg.Attended)
	}
	s.out.emit(s.describe())
	if cfg.Commands != nil {
		s.out.emit(protocol.CommandsEvent{Commands: cfg.Commands.List()})
	}
	s.emitHistory()
	context.AfterFunc(s.ctx, func() { _, _ = s.Submit(protocol.Shutdown{}) })
	return &Owner{s}, nil
}

// Events is the session's event stream. It closes after Shutdown, once
// the queued turns have ended.
func (s *session) Events() <-chan protocol.Event { return s.out.events }

// Publish adds an event from outside the loop: a background command's
// output, a task list that changed. The composition root uses it.
func (s *session) Publish(e protocol.Event) { s.out.emit(e) }

// Broker returns the session's approval desk, for subagents to share.
func (s *session) Broker() *Broker { return s.broker }

func (s *session) describe() protocol.SessionEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.describeLocked()
}

func (s *session) describeLocked() protocol.SessionEvent {
	return protocol.SessionEvent{
		SessionID: s.id, Cwd: s.cfg.Cwd, Provider: s.provName,
		Model: s.model, Agent: s.variant.Name, Thinking: string(s.variant.Thinking), Mode: s.mode.String(),
		Attended: s.cfg.Attended && !s.closing, Agents: agentInfos(),
	}
}

// ErrClosed is Submit's error once the session is shutting down.
var ErrClosed = protocol.ErrClosed

// History returns a copy of the stored conversation.
func (s *session) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}

// replaceHistory makes a Replace change: the recorder keeps that the
// history was replaced, and a HistoryEvent marked Replaced, carrying op,
// tells front ends to redraw.
func (s *session) replaceHistory(op string, h []llm.Message) {
	s.mu.Lock()
	s.setHistoryLocked(h)
	head := s.headLocked()
	s.mu.Unlock()
	s.record(Replaced{Head: head, History: h})
	ev := s.historyEvent(h)
	ev.Op, ev.Replaced = op, true
	s.out.emit(ev)
}

// Usage returns the tokens used by the session so far.
func (s *session) Usage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Model and Variant are the settings the next turn uses.
func (s *session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Provider is the provider the next turn uses, and its preset's name.
func (s *session) Provider() (llm.Provider, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.provider, s.provName
}

// Variant is the agent variant the next turn uses.
func (s *session) Variant() Variant {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.variant
}

// Mode is the permission mode the next call is decided in.
func (s *session) Mode() permission.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// setMode switches the permission mode and announces it.
func (s *session) setMode(m permission.Mode) {
	s.mu.Lock()
	changed := s.mode != m
	s.mode = m
	ev := s.describeLocked()
	s.mu.Unlock()
	if changed {
		s.out.emit(ev)
	}
}

// Config returns the configuration the session was started with.
func (s *session) Config() Config { return s.cfg }

// Gate is the gate the current (or next) turn decides calls with.
func (s *session) Gate() *Gate { return s.gate.Load() }

// Tools is the registry the current (or next) turn offers tools from: the
// one the session started with, or the last one a TurnSetup brought.
func (s *session) Tools() *tool.Registry { return s.tools.Load() }

// filter is the tool filter of a step: the configured sets, the variant's
// read-only flag, and what nobody can answer withheld.
func (s *session) filter(v Variant) tool.Filter {
	f := s.cfg.Filter
	f.ReadOnly = f.ReadOnly || v.ReadOnly
	f.Unattended = f.Unattended || !s.cfg.Attended
	return f
}

// ActiveTools returns the tools offered at the next step. The request and
// the prompt both come from this one list, so they never disagree.
func (s *session) ActiveTools() []tool.Tool {
	return s.Tools().Active(s.filter(s.Variant()))
}

// appendMessage stores m, sealed: the history never changes a message, so
// each adapter encodes it once however many requests carry it. The
// recorder keeps it before the next step.
func (s *session) appendMessage(m llm.Message) { s.appendStep(m, "", llm.Usage{}) }

// checkConfigure refuses a settings change that names an unknown agent,
// thinking level or permission mode.
func checkConfigure(c protocol.Configure) error {
	if _, err := permission.ParseMode(c.Mode); err != nil {
		return err
	}
	if c.Agent != "" {
		if _, err := VariantNamed(c.Agent); err != nil {
			return err
		}
	}
	if c.Thinking != "" {
		if _, err := llm.ParseThinking(c.Thinking); err != nil {
			return fmt.Errorf("thinking: %w", err)
		}
	}
	return nil
}

// applyConfigure checks a settings change and applies it; the caller holds
// s.mu. A new agent brings its own thinking level unless the same change
// sets one.
func (s *session) applyConfigure(c protocol.Configure) error {
	if err := checkConfigure(c); err != nil {
		return err
	}
	v := s.variant
	if c.Agent != "" {
		v, _ = VariantNamed(c.Agent)
	}
	if c.Thinking != "" {
		v.Thinking, _ = llm.ParseThinking(c.Thinking)
	}
	s.variant = v
	if c.Model != "" {
		s.model = c.Model
	}
	return nil
}
