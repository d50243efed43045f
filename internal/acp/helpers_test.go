package acp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// wire is a client connected to Serve over a pair of pipes, as an editor
// would be over the agent's stdin and stdout.
type wire struct {
	*sdk.ClientSideConnection
	client  *editor
	log     *syncBuffer
	served  chan error
	toAgent *io.PipeWriter
	once    sync.Once
	err     error
}

func connect(t testing.TB, open acp.Opener) *wire {
	t.Helper()
	return connectWith(t, t.Context(), open)
}

// connectWith serves under ctx.
func connectWith(t testing.TB, ctx context.Context, open acp.Opener) *wire {
	t.Helper()
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	w := &wire{client: newEditor(), log: &syncBuffer{}, served: make(chan error, 1), toAgent: toAgent}
	t.Cleanup(func() { toAgent.Close() })
	logger := slog.New(slog.NewTextHandler(w.log, nil))
	go func() {
		err := acp.Serve(ctx, agentIn, agentOut, open, acp.WithVersion("1.2.3"), acp.WithLogger(logger))
		// The client's reader ends with the agent's output.
		agentOut.Close()
		w.served <- err
	}()
	w.ClientSideConnection = sdk.NewClientSideConnection(w.client, toAgent, fromAgent)
	w.SetLogger(logger)
	t.Cleanup(func() { w.hangUp() })
	return w
}

// hangUp closes the agent's input, as an editor quitting does, and
// returns what Serve returned once every session was drained.
func (w *wire) hangUp() error {
	w.toAgent.Close()
	return w.wait()
}

// wait returns what Serve returned.
func (w *wire) wait() error {
	w.once.Do(func() { w.err = <-w.served })
	return w.err
}

// open initializes the connection and opens a session in cwd.
func (w *wire) open(t *testing.T, cwd string) sdk.NewSessionResponse {
	t.Helper()
	if _, err := w.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := w.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type promptResult struct {
	resp sdk.PromptResponse
	err  error
}

// promptAsync sends a text prompt; its answer arrives on the channel.
func (w *wire) promptAsync(ctx context.Context, id sdk.SessionId, text string) <-chan promptResult {
	out := make(chan promptResult, 1)
	go func() {
		r, err := w.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		out <- promptResult{r, err}
	}()
	return out
}

// editor is the client side: it records every update in order and hands
// permission requests to the test, which answers them.
type editor struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	changed chan struct{}
	asks    chan permissionAsk
}

type permissionAsk struct {
	req    sdk.RequestPermissionRequest
	ctx    context.Context
	answer chan sdk.RequestPermissionOutcome
}

func newEditor() *editor {
	return &editor{changed: make(chan struct{}), asks: make(chan permissionAsk, 16)}
}

func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n.Update)
	close(e.changed)
	e.changed = make(chan struct{})
	return nil
}

func (e *editor) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	a := permissionAsk{req: r, ctx: ctx, answer: make(chan sdk.RequestPermissionOutcome, 1)}
	e.asks <- a
	select {
	case out := <-a.answer:
		return sdk.RequestPermissionResponse{Outcome: out}, nil
	case <-ctx.Done():
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
}

// seen returns the updates so far; mark is where a later call may start.
func (e *editor) seen() []sdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sdk.SessionUpdate(nil), e.updates...)
}

// waitFor blocks until an update after index from satisfies ok.
func (e *editor) waitFor(from int, ok func(sdk.SessionUpdate) bool) sdk.SessionUpdate {
	for {
		e.mu.Lock()
		for _, u := range e.updates[min(from, len(e.updates)):] {
			if ok(u) {
				e.mu.Unlock()
				return u
			}
		}
		from = len(e.updates)
		changed := e.changed
		e.mu.Unlock()
		<-changed
	}
}

func (e *editor) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (e *editor) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (e *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}

func selected(option string) sdk.RequestPermissionOutcome {
	return sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(option)}}
}

// syncBuffer is a log sink tests read after the server wrote to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// scripted is a Session the test plays by hand: it emits the events a test
// gives it and records the ops it is sent.
type scripted struct {
	events chan protocol.Event
	ops    chan protocol.Op
	mu     sync.Mutex
	closed bool
}

func newScripted(first protocol.SessionEvent) *scripted {
	s := &scripted{events: make(chan protocol.Event, 64), ops: make(chan protocol.Op, 64)}
	s.events <- first
	return s
}

func (s *scripted) Submit(op protocol.Op) (string, error) {
	s.ops <- op
	if _, ok := op.(protocol.Shutdown); ok {
		s.mu.Lock()
		if !s.closed {
			s.closed = true
			close(s.events)
		}
		s.mu.Unlock()
	}
	return "op", nil
}

func (s *scripted) Events() <-chan protocol.Event { return s.events }

func (s *scripted) emit(es ...protocol.Event) {
	for _, e := range es {
		s.events <- e
	}
}

// next returns the next op the session was sent, which must be a T.
func next[T protocol.Op](t *testing.T, s *scripted) T {
	t.Helper()
	op := <-s.ops
	v, ok := op.(T)
	if !ok {
		t.Fatalf("op = %#v, want a %T", op, v)
	}
	return v
}

// opsLeft drains the ops recorded so far.
// opName is an op's Go type without its package: "Interrupt", "Shutdown".
func opName(op protocol.Op) string { return strings.TrimPrefix(fmt.Sprintf("%T", op), "protocol.") }

func opsLeft(s *scripted) []protocol.Op {
	var out []protocol.Op
	for {
		select {
		case op := <-s.ops:
			out = append(out, op)
		default:
			return out
		}
	}
}

// openerOf hands out one scripted session.
func openerOf(s *scripted) acp.Opener {
	return func(context.Context, acp.NewSession) (acp.Session, error) { return s, nil }
}
