// Package agent runs sessions: a front end submits ops (protocol.Op) and
// reads events (protocol.Event); a turn sends the history to the model,
// turns the streamed response into events, passes every tool call through
// the gate, runs the allowed ones and loops until the model stops. The
// terminal UI, headless mode, the ACP server and the task tool's subagents
// are all clients of the same protocol.
package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/llm"
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

// TurnObserver runs when a turn ends and may return notices to show.
type TurnObserver interface {
	AfterTurn(ctx context.Context, t TurnSummary) []string
}

// TurnSummary describes a finished turn.
type TurnSummary struct {
	SessionID    string
	Cwd          string
	ToolsCalled  []string
	FilesWritten []string
	// RanCommands is set when a call ran programs, whose writes no plan
	// can list (bash, run_checks).
	RanCommands bool
	Usage       llm.Usage
	Interrupted bool
}

// TurnSetup is what BeforeTurn hands the next turn: a new gate when
// extensions were reloaded (nil keeps the current one) and notices to show.
type TurnSetup struct {
	Gate    *Gate
	Notices []string
}

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
// offer, and a prompt to run as the next turn (a custom command that
// expands to a prompt, /init).
type CommandOutcome struct {
	Output  string
	Choices []protocol.Choice
	Prompt  string
}

// Config assembles a session.
type Config struct {
	Provider  llm.Provider
	Model     string
	SessionID string
	// Provider's preset name, for the session event.
	ProviderName string
	// Cwd is the workspace root.
	Cwd      string
	Tools    *tool.Registry
	Gate     *Gate
	Prompter Prompter
	Variant  Variant
	// Filter selects the offered tools (sets); the variant's read-only
	// flag and the session's attendance are applied on top.
	Filter tool.Filter
	// Attended says someone will answer approvals and questions. Without
	// it every ask is denied by policy and interactive tools are withheld.
	Attended bool
	// CacheSystemPrefix marks the stable system block cacheable and adds
	// the moving breakpoint on the last message (Anthropic protocol).
	CacheSystemPrefix bool
	// VolatilePlacement says where the volatile part of the prompt goes on
	// the wire. The zero value, VolatileTail, is the one that caches most.
	VolatilePlacement VolatilePlacement
	// PruneTokens is the estimated history size above which old tool
	// output is pruned from the copy sent to the model (0: default).
	PruneTokens int
	Observers   []TurnObserver
	// BeforeTurn runs at the start of every turn, before the prompt is
	// built: the turn boundary where reloaded skills and plugins take
	// effect, never mid-turn.
	BeforeTurn func(ctx context.Context) TurnSetup
	// Commands runs slash commands; nil refuses every Command op.
	Commands Commander
	// Subagent names the subagent kind this session runs as (explore,
	// review, worker), empty for the main session. Every call it makes is
	// marked with it at the gate, so the person's prompt says who asks and
	// a denial tells the subagent to stop and report.
	Subagent string
	// Broker is the parent's, for a subagent: its approvals and questions
	// reach the parent's front end. Nil for a main session.
	Broker *Broker
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

// Session is one conversation. Its methods are safe from any goroutine.
type Session struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	out    *outbox
	broker *broker
	gate   atomic.Pointer[Gate]

	mu       sync.Mutex
	model    string
	variant  Variant
	pending  *protocol.Configure // settings waiting for the turn to end
	history  []llm.Message
	sizes    sizeCache
	usage    llm.Usage
	subUsage map[string]llm.Usage
	repeats  *RepeatGuard
	current  *currentCall // the tool call being decided or run
	queue    []queued     // turns and commands waiting for the running turn
	running  bool         // the turn runner goroutine is active
	inTurn   bool         // a turn (not a queued command) is running
	turnStop context.CancelFunc
	turnSeq  int
	closing  bool // Shutdown was submitted
	closed   bool // the outbox is closed
	runner   sync.WaitGroup
}

// Start builds a session and starts serving it: the first event is a
// SessionEvent. Cancelling ctx stops the running turn and ends the
// session as Shutdown would. Read Events until it is closed.
func Start(ctx context.Context, cfg Config) (*Session, error) {
	if cfg.Provider == nil || cfg.Tools == nil || cfg.Gate == nil || cfg.Prompter == nil {
		return nil, errors.New("agent: a session needs a provider, tools, a gate and a prompter")
	}
	if cfg.Variant.Name == "" {
		cfg.Variant = DefaultVariant()
	}
	if cfg.PruneTokens <= 0 {
		cfg.PruneTokens = defaultPruneTokens
	}
	s := &Session{cfg: cfg, out: newOutbox(), model: cfg.Model, variant: cfg.Variant, repeats: NewRepeatGuard()}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.gate.Store(cfg.Gate)
	if cfg.Broker != nil {
		s.broker = cfg.Broker
	} else {
		s.broker = newBroker(s.out.emit, cfg.Attended)
	}
	s.out.emit(s.describe())
	if cfg.Commands != nil {
		s.out.emit(protocol.CommandsEvent{Commands: cfg.Commands.List()})
	}
	context.AfterFunc(s.ctx, func() { _ = s.Submit(protocol.Shutdown{}) })
	return s, nil
}

// Events is the session's event stream. It closes after Shutdown, once
// the queued turns have ended.
func (s *Session) Events() <-chan protocol.Event { return s.out.events }

// Publish adds an event from outside the loop: a background command's
// output, a task list that changed. The composition root uses it.
func (s *Session) Publish(e protocol.Event) { s.out.emit(e) }

// Broker returns the session's approval desk, for subagents to share.
func (s *Session) Broker() *Broker { return s.broker }

// Person returns whoever attends the session, for tools that ask.
func (s *Session) Person() tool.Person { return s.broker }

func (s *Session) describe() protocol.SessionEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.describeLocked()
}

func (s *Session) describeLocked() protocol.SessionEvent {
	return protocol.SessionEvent{
		SessionID: s.cfg.SessionID, Cwd: s.cfg.Cwd, Provider: s.cfg.ProviderName,
		Model: s.model, Agent: s.variant.Name, Thinking: string(s.variant.Thinking),
		Attended: s.cfg.Attended && !s.closing, Agents: agentInfos(),
	}
}

// ErrClosed is Submit's error once the session is shutting down.
var ErrClosed = protocol.ErrClosed

// History returns a copy of the stored conversation.
func (s *Session) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}

// SetHistory replaces the conversation (resuming a saved session, /clear).
// It refuses while a turn runs; a command queued behind turns runs
// between them, where it may.
func (s *Session) SetHistory(h []llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inTurn {
		return errors.New("a turn is running; wait for it to end")
	}
	s.history = slices.Clone(h)
	s.sizes = sizeCache{}
	return nil
}

// Usage returns the tokens used by the session so far.
func (s *Session) Usage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Model and Variant are the settings the next turn uses.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Variant is the agent variant the next turn uses.
func (s *Session) Variant() Variant {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.variant
}

// Config returns the configuration the session was started with.
func (s *Session) Config() Config { return s.cfg }

// Gate is the gate the current (or next) turn decides calls with.
func (s *Session) Gate() *Gate { return s.gate.Load() }

// filter is the tool filter of a step: the configured sets, the variant's
// read-only flag, and what nobody can answer withheld.
func (s *Session) filter(v Variant) tool.Filter {
	f := s.cfg.Filter
	f.ReadOnly = f.ReadOnly || v.ReadOnly
	f.Unattended = f.Unattended || !s.cfg.Attended
	return f
}

// ActiveTools returns the tools offered at the next step. The request and
// the prompt both come from this one list, so they never disagree.
func (s *Session) ActiveTools() []tool.Tool {
	return s.cfg.Tools.Active(s.filter(s.Variant()))
}

func (s *Session) appendMessage(m llm.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = append(s.history, m)
}

// checkConfigure refuses a settings change that names an unknown agent or
// thinking level.
func checkConfigure(c protocol.Configure) error {
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
func (s *Session) applyConfigure(c protocol.Configure) error {
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
