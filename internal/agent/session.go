// Package agent runs the turn loop: it sends the history to the model,
// turns the streamed response into events, passes every tool call through
// the gate, runs the allowed ones and loops until the model stops. Front ends
// (the TUI, headless mode, tests) consume the same event stream.
package agent

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Prompter renders the system prompt for one step from live state. Stable is
// the cacheable prefix; Volatile (task list, memory, loaded skills) changes
// within a session and travels after the last cache breakpoint.
type Prompter interface {
	Prompt(active []tools.Tool) (stable, volatile string)
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
	Usage        llm.Usage
	Interrupted  bool
}

// Config assembles a session.
type Config struct {
	Provider  llm.Provider
	Model     string
	SessionID string
	Env       *tools.Env
	Tools     *tools.Registry
	Gate      *Gate
	Prompter  Prompter
	Variant   Variant
	// Filter selects the offered tools (sets, withheld names); the
	// variant's read-only flag is applied on top.
	Filter tools.Filter
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
	// built: the turn boundary where installed skills and plugins take
	// effect, never mid-turn. Its notices are shown.
	BeforeTurn func(ctx context.Context) []string
	// Subagent names the subagent kind this session runs as (explore,
	// review, worker), empty for the main session. Every call it makes is
	// marked with it at the gate, so the person's prompt says who asks and
	// a denial tells the subagent to stop and report.
	Subagent string
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

// Session is one conversation. Send must not be called concurrently.
type Session struct {
	cfg Config

	mu      sync.Mutex
	history []llm.Message
	sizes   sizeCache
	usage   llm.Usage
	repeats *RepeatGuard
	// subUsage is what this session's subagents used, by model.
	subUsage map[string]llm.Usage
	// current is the tool call being decided or run (InterruptTool).
	current *currentCall
}

// New builds a session from cfg.
func New(cfg Config) (*Session, error) {
	if cfg.Provider == nil || cfg.Tools == nil || cfg.Env == nil || cfg.Gate == nil || cfg.Prompter == nil {
		return nil, fmt.Errorf("agent: a session needs a provider, tools, an env, a gate and a prompter")
	}
	if cfg.Variant.Name == "" {
		cfg.Variant = DefaultVariant()
	}
	if cfg.PruneTokens <= 0 {
		cfg.PruneTokens = defaultPruneTokens
	}
	return &Session{cfg: cfg, repeats: NewRepeatGuard()}, nil
}

// History returns a copy of the stored conversation.
func (s *Session) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}

// SetHistory replaces the conversation (resuming a saved session).
func (s *Session) SetHistory(h []llm.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = slices.Clone(h)
	s.sizes = sizeCache{}
}

// Usage returns the tokens used by the session so far.
func (s *Session) Usage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Config returns the session's configuration.
func (s *Session) Config() Config { return s.cfg }

// SetVariant switches the agent variant for later turns.
func (s *Session) SetVariant(v Variant) { s.cfg.Variant = v }

// SetModel switches the model for later turns (/model). Like SetVariant it
// must not be called while a turn runs.
func (s *Session) SetModel(model string) { s.cfg.Model = model }

// ActiveTools returns the tools offered at the next step. The request and
// the prompt both come from this one list, so they never disagree.
func (s *Session) ActiveTools() []tools.Tool {
	f := s.cfg.Filter
	f.ReadOnly = f.ReadOnly || s.cfg.Variant.ReadOnly
	return s.cfg.Tools.Active(f)
}

func (s *Session) appendMessage(m llm.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = append(s.history, m)
}

// Send runs one turn for prompt and yields its events. The turn ends when the
// model stops asking for tools, the variant's step cap is reached, or ctx is
// cancelled; the last event is always a DoneEvent. Stopping the iteration
// early cancels the turn.
func (s *Session) Send(ctx context.Context, prompt string) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		t := &turn{s: s, ctx: ctx, yield: yield}
		t.run(prompt)
	}
}
