package acp

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// client is what a session needs of the connection: *acp.AgentSideConnection.
type client interface {
	SessionUpdate(ctx context.Context, n acp.SessionNotification) error
	RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error)
}

// session is one shiro session served to the client. A pump goroutine
// reads its events in order and forwards them; prompts wait for the pump
// to see their turn end.
type session struct {
	id    acp.SessionId
	inner Session
	cwd   string
	peer  client
	// forward bounds everything sent to the client.
	forward context.Context
	log     *slog.Logger

	// slot admits one prompt at a time. The SDK cancels a prompt when a
	// newer one arrives for the same session, so the newer one waits here
	// for the older one's turn to wind down.
	slot chan struct{}
	// drained is closed when the pump has read the last event.
	drained chan struct{}
	// asking counts the permission requests in flight.
	asking sync.WaitGroup

	mu      sync.Mutex
	current *promptTurn // the prompt whose turn is submitted, if any
	// queued are prompts waiting for the slot; session/cancel cancels
	// them too.
	queued []*promptTurn
	asks   map[string]context.CancelFunc
	calls  map[string]*callView
	// mode is the permission mode, which ACP shows as the session mode;
	// agent and agents are the agent variant and those to choose from,
	// shown as the "agent" config option.
	mode   string
	agent  string
	agents []protocol.AgentInfo
	ended  bool // the event stream has closed
	// commands are the names of the session's slash commands.
	commands map[string]bool
}

// promptTurn is one prompt's view of its turn.
type promptTurn struct {
	// started: the turn's TurnStartEvent arrived, so its DoneEvent will.
	started bool
	// cancelled: the client cancelled; the turn is interrupted once started.
	cancelled bool
	// failure is the turn's ErrorEvent, if it had one.
	failure string
	usage   *protocol.Usage
	// lost: the session ended before the turn did.
	lost bool
	// limited: a ceiling ended the turn (the step cap or a spend limit);
	// refused: the repeat guard did, at the third identical refused call.
	limited, refused bool
	// command: the prompt is a slash command still waiting for its result.
	command bool
	done    chan struct{}
}

func newSession(id acp.SessionId, inner Session, first protocol.SessionEvent, peer client, forward context.Context, log *slog.Logger) *session {
	return &session{
		id: id, inner: inner, cwd: first.Cwd, peer: peer, forward: forward, log: log,
		slot: make(chan struct{}, 1), drained: make(chan struct{}),
		asks: map[string]context.CancelFunc{}, calls: map[string]*callView{},
		mode: first.Mode, agent: first.Agent, agents: first.Agents,
	}
}

// start runs the pump.
func (s *session) start() { go s.pump() }

func (s *session) pump() {
	defer close(s.drained)
	for e := range s.inner.Events() {
		s.handle(e)
	}
	s.mu.Lock()
	s.ended = true
	if p := s.current; p != nil {
		s.current = nil
		p.lost = true
		close(p.done)
	}
	asks := s.asks
	s.asks = map[string]context.CancelFunc{}
	s.mu.Unlock()
	for _, cancel := range asks {
		cancel()
	}
}

// promptWith submits text, with any pictures, as a turn and waits for the
// turn to end.
func (s *session) promptWith(ctx context.Context, text string, images []protocol.Image) (acp.PromptResponse, error) {
	return s.runTurn(ctx, s.enqueue(), protocol.UserTurn{Text: text}.WithImages(images))
}

// enqueue registers a prompt before it waits for the slot.
func (s *session) enqueue() *promptTurn {
	p := &promptTurn{done: make(chan struct{})}
	s.mu.Lock()
	s.queued = append(s.queued, p)
	s.mu.Unlock()
	return p
}

// runTurn waits for p's turn in the slot, submits the turn and waits for
// it to end. A turn whose text is a slash command line, and that carries
// no pictures, is submitted as that command.
func (s *session) runTurn(ctx context.Context, p *promptTurn, turn protocol.UserTurn) (acp.PromptResponse, error) {
	text := turn.Text
	select {
	case s.slot <- struct{}{}:
	case <-ctx.Done():
		s.dequeue(p)
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	defer func() { <-s.slot }()

	var op protocol.Op = turn
	line, isCommand := s.commandLine(text)
	isCommand = isCommand && turn.Images == nil
	if isCommand {
		op = protocol.Command{Line: line}
	}
	s.mu.Lock()
	s.unqueueLocked(p)
	switch {
	case p.cancelled:
		s.mu.Unlock()
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case s.ended:
		s.mu.Unlock()
		return acp.PromptResponse{}, internalError("session %s has ended; create a new one with session/new", s.id)
	}
	s.current = p
	p.command = isCommand
	s.mu.Unlock()
	if _, err := s.inner.Submit(op); err != nil {
		s.mu.Lock()
		if s.current == p {
			s.current = nil
		}
		s.mu.Unlock()
		return acp.PromptResponse{}, internalError("session %s refused the prompt: %v", s.id, err)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		s.cancelPrompt(p)
		<-p.done
	}
	return p.response()
}

func (s *session) dequeue(p *promptTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unqueueLocked(p)
}

func (s *session) unqueueLocked(p *promptTurn) {
	s.queued = slices.DeleteFunc(s.queued, func(q *promptTurn) bool { return q == p })
}

func (p *promptTurn) response() (acp.PromptResponse, error) {
	switch {
	case p.cancelled:
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case p.failure != "":
		return acp.PromptResponse{}, internalError("the turn failed: %s", p.failure)
	case p.lost:
		return acp.PromptResponse{}, internalError("the session ended before the turn finished")
	}
	if p.refused {
		return acp.PromptResponse{StopReason: acp.StopReasonRefusal, Usage: usageOf(p.usage)}, nil
	}
	if p.limited {
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests, Usage: usageOf(p.usage)}, nil
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: usageOf(p.usage)}, nil
}

func usageOf(u *protocol.Usage) *acp.Usage {
	if u == nil {
		return nil
	}
	read, write := u.CacheReadTokens, u.CacheWriteTokens
	return &acp.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens,
		CachedReadTokens: &read, CachedWriteTokens: &write,
	}
}

// cancelPrompt interrupts p's turn. Before the turn has started, an
// Interrupt would drop it from the session's queue and no DoneEvent would
// ever come; so the pump interrupts it on its TurnStartEvent instead.
func (s *session) cancelPrompt(p *promptTurn) {
	s.mu.Lock()
	if p.cancelled {
		s.mu.Unlock()
		return
	}
	p.cancelled = true
	started := p.started
	s.mu.Unlock()
	if started {
		s.interrupt()
	}
}

// cancel is session/cancel: the waiting prompt's turn is interrupted, or,
// between prompts, whatever runs.
func (s *session) cancel() {
	s.mu.Lock()
	for _, q := range s.queued {
		q.cancelled = true
	}
	p := s.current
	s.mu.Unlock()
	if p != nil {
		s.cancelPrompt(p)
		return
	}
	s.interrupt()
}

func (s *session) interrupt() {
	if _, err := s.inner.Submit(protocol.Interrupt{}); err != nil {
		s.log.Debug("acp: interrupt refused", "session", s.id, "err", err)
	}
}

// end interrupts the session and tells it no more input comes; its event
// stream then closes. A waiting prompt answers cancelled.
func (s *session) end() {
	s.mu.Lock()
	if p := s.current; p != nil {
		p.cancelled = true
	}
	for _, q := range s.queued {
		q.cancelled = true
	}
	s.mu.Unlock()
	s.interrupt()
	_, _ = s.inner.Submit(protocol.Shutdown{})
}

// wait blocks until the event stream is drained and no permission request
// is left in flight.
func (s *session) wait() {
	<-s.drained
	s.asking.Wait()
}

// modeState is the permission modes as ACP session modes.
func (s *session) modeState() *acp.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	var modes []acp.SessionMode
	for _, m := range permission.Modes() {
		modes = append(modes, acp.SessionMode{Id: acp.SessionModeId(m.String()), Name: m.String(), Description: acp.Ptr(modeDescription(m))})
	}
	return &acp.SessionModeState{AvailableModes: modes, CurrentModeId: acp.SessionModeId(cmp.Or(s.mode, permission.ModeDefault.String()))}
}

func modeDescription(m permission.Mode) string {
	switch m {
	case permission.ModeAcceptEdits:
		return "file edits in the workspace run without asking; commands still ask"
	case permission.ModePlan:
		return "read-only: the agent investigates and presents a plan for you to approve"
	}
	return "edits and commands ask as your rules say"
}

// agentOption is the config option that chooses the agent variant.
const agentOption = "agent"

// configOptions are the session's config options: the agent variant.
func (s *session) configOptions() []acp.SessionConfigOption {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.agents) == 0 {
		return []acp.SessionConfigOption{}
	}
	values := make(acp.SessionConfigSelectOptionsUngrouped, len(s.agents))
	for i, a := range s.agents {
		values[i] = acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(a.Name), Name: a.Name}
		if a.Description != "" {
			values[i].Description = acp.Ptr(a.Description)
		}
	}
	opt := acp.NewSessionConfigOptionSelect(acp.SessionConfigValueId(s.agent), acp.SessionConfigSelectOptions{Ungrouped: &values})
	opt.Select.Id, opt.Select.Name = agentOption, "Agent"
	opt.Select.Description = acp.Ptr("how hard the agent thinks, how many steps a turn may take, and whether it may write")
	return []acp.SessionConfigOption{opt}
}

func (s *session) agentNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.agents))
	for i, a := range s.agents {
		out[i] = a.Name
	}
	return out
}

// send forwards one update. A client that is gone, or a server shutting
// down, drops it: nothing here may stall the pump.
func (s *session) send(u acp.SessionUpdate) {
	if err := s.peer.SessionUpdate(s.forward, acp.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		s.log.Debug("acp: update not delivered", "session", s.id, "err", err)
	}
}
