// Package acp serves shiro's sessions to editors over the Agent Client
// Protocol (https://agentclientprotocol.com): JSON-RPC on stdin and stdout,
// spoken by Zed, JetBrains IDEs and Neovim plugins. It is one more client of
// the session protocol (internal/protocol): a prompt becomes a UserTurn,
// events become session/update notifications, approval requests and
// questions become session/request_permission calls, and the client's
// answers come back as Approval and Answer ops.
//
// The wire format belongs to github.com/coder/acp-go-sdk; this package only
// translates between its types and shiro's.
package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Session is the protocol as acp uses it; the agent's session implements
// it.
type Session interface {
	// Submit returns the op's id, which the events it causes carry.
	Submit(op protocol.Op) (string, error)
	Events() <-chan protocol.Event
}

// NewSession is what session/new asks for.
type NewSession struct {
	// Cwd is the workspace root: absolute, and an existing directory.
	Cwd string
	// MCPServers are the MCP servers the client asked the session to use,
	// as it sent them.
	MCPServers []MCPServer
}

// Opener starts a session for session/new. ctx lives as long as the
// connection: cancelling it ends the session. The session's first event
// must be its SessionEvent.
type Opener func(ctx context.Context, req NewSession) (Session, error)

// Option adjusts Serve.
type Option func(*config)

type config struct {
	version string
	log     *slog.Logger
}

// WithVersion is the version the agent reports in initialize.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithLogger receives the server's diagnostics. Stdout carries the
// protocol, so the logger must write elsewhere; the default is
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// Serve speaks ACP as the agent: it reads the client's messages from in and
// writes its own to out until the client closes in or ctx is cancelled.
// Then every session is interrupted and shut down, and Serve returns once
// their event streams have been drained: nil when the client hung up,
// ctx's error when ctx ended first. Serve closes neither in nor out; after
// ctx ends, the SDK's reader stays blocked on in until it is closed.
func Serve(ctx context.Context, in io.Reader, out io.Writer, open Opener, opts ...Option) error {
	if open == nil {
		return errors.New("acp: Serve needs an Opener to start sessions")
	}
	cfg := config{version: "dev", log: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	life, end := context.WithCancel(ctx)
	defer end()
	a := newServer(life, open, cfg)
	// The connection starts reading at once; holding the first read back
	// until a.peer is set means no handler can run without it.
	ready := make(chan struct{})
	conn := acp.NewAgentSideConnection(a, out, afterReady{r: in, ready: ready})
	conn.SetLogger(cfg.log)
	a.peer = conn
	close(ready)

	var err error
	select {
	case <-conn.Done():
	case <-ctx.Done():
		err = ctx.Err()
	}
	a.shutdown()
	return err
}

// afterReady is a reader whose first read waits for ready.
type afterReady struct {
	r     io.Reader
	ready <-chan struct{}
}

func (g afterReady) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}

// server is the ACP agent of one connection.
type server struct {
	// life is the connection's lifetime: sessions are opened under it.
	life context.Context
	// forward is cancelled when shutdown begins: from then on nothing more
	// is sent to the client and open permission requests are abandoned.
	forward     context.Context
	stopForward context.CancelFunc
	open        Opener
	cfg         config
	peer        *acp.AgentSideConnection

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	closing  bool
}

var _ acp.Agent = (*server)(nil)

func newServer(life context.Context, open Opener, cfg config) *server {
	a := &server{life: life, open: open, cfg: cfg, sessions: map[acp.SessionId]*session{}}
	a.forward, a.stopForward = context.WithCancel(life)
	return a
}

// shutdown ends every session: the running turn is interrupted, the
// session is told no more input comes, and its events are drained.
func (a *server) shutdown() {
	a.mu.Lock()
	a.closing = true
	all := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.sessions = map[acp.SessionId]*session{}
	a.mu.Unlock()
	a.stopForward()
	for _, s := range all {
		s.end()
	}
	for _, s := range all {
		s.wait()
	}
}

// lookup finds a session by the id the client names.
func (a *server) lookup(id acp.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[id]; ok {
		return s, nil
	}
	return nil, invalidParams("sessionId %q names no open session; create one with session/new", id)
}
