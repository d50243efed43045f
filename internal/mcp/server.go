package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/proc"
)

// State is where a server is in its life.
type State string

const (
	// StateNotApproved: a project server the person has not approved.
	StateNotApproved State = "not approved"
	// StateChanged: a project server whose definition changed since it
	// was approved.
	StateChanged State = "changed since approved"
	// StateIdle: not started yet (servers start with the first turn).
	StateIdle     State = "not started"
	StateStarting State = "starting"
	StateReady    State = "ready"
	// StateFailed: the last start did not succeed.
	StateFailed State = "failed"
	// StateStopped: the server stopped while it ran (it crashed, or its
	// connection was lost).
	StateStopped State = "stopped"
	StateClosed  State = "closed"
)

// Backoff bounds between restarts of a server that keeps failing.
const (
	firstBackoff = time.Second
	maxBackoff   = time.Minute
)

// server is one configured server and its connection, if any.
type server struct {
	def Def
	m   *Manager

	mu    sync.Mutex
	state State
	cs    *sdk.ClientSession
	// settled is closed once the end of the current connection has been
	// recorded (state, error, backoff).
	settled      chan struct{}
	tools        []*sdk.Tool
	prompts      []*sdk.Prompt
	resources    bool
	toolsStale   bool
	promptsStale bool
	// version counts tool-list changes, so the manager knows when to
	// rebuild the session's tools.
	version  int
	err      error
	failures int
	retryAt  time.Time
	reported bool
	starting chan struct{}
	stderr   *tail
	exit     *proc.Result
}

// approval says whether a server may start: project servers need an
// approval of exactly their current digest.
func (s *server) approval() (State, error) {
	if !s.def.Origin.NeedsApproval() {
		return "", nil
	}
	a, ok, err := s.m.trust.Lookup(s.m.root, s.def.Name)
	switch {
	case err != nil:
		return StateNotApproved, fmt.Errorf("MCP server %s is not started: %w", s.def.Name, err)
	case !ok:
		return StateNotApproved, fmt.Errorf("MCP server %s (from %s) is not approved: run `shiro mcp approve %s` or /mcp approve %s", s.def.Name, s.def.Source, s.def.Name, s.def.Name)
	case a.Digest != s.def.Digest:
		return StateChanged, fmt.Errorf("MCP server %s (from %s) changed since you approved it: review it with `shiro mcp get %s`, then approve it again", s.def.Name, s.def.Source, s.def.Name)
	}
	return "", nil
}

// session returns a live connection, starting the server when it is not
// running and its backoff allows.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	for {
		switch {
		case s.state == StateReady:
			cs := s.cs
			s.mu.Unlock()
			return cs, nil
		case s.state == StateClosed:
			s.mu.Unlock()
			return nil, fmt.Errorf("MCP server %s: the session has ended", s.def.Name)
		case s.starting != nil:
			wait := s.starting
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			s.mu.Lock()
			continue
		}
		break
	}
	if st, err := s.approval(); err != nil {
		s.state, s.err = st, err
		s.mu.Unlock()
		return nil, err
	}
	if (s.state == StateFailed || s.state == StateStopped) && s.m.now().Before(s.retryAt) {
		err := fmt.Errorf("MCP server %s is not running (%v); shiro starts it again in %s", s.def.Name, s.err, s.retryAt.Sub(s.m.now()).Round(time.Second))
		s.mu.Unlock()
		return nil, err
	}
	done := make(chan struct{})
	s.starting, s.state = done, StateStarting
	s.mu.Unlock()

	conn, err := s.connect(ctx)

	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(done)
	s.starting = nil
	if s.state == StateClosed {
		if conn != nil {
			go conn.close()
		}
		return nil, fmt.Errorf("MCP server %s: the session has ended", s.def.Name)
	}
	if err != nil {
		s.fail(StateFailed, err)
		return nil, s.err
	}
	s.state, s.cs, s.settled, s.err = StateReady, conn.cs, conn.settled, nil
	s.tools, s.prompts, s.resources = conn.tools, conn.prompts, conn.resources
	s.toolsStale, s.promptsStale, s.reported = false, false, false
	s.version++
	go s.watch(conn)
	return conn.cs, nil
}

// fail records a failure and when the server may be tried again; the
// first failure since the server last worked is reported. The caller
// holds s.mu.
func (s *server) fail(st State, err error) {
	s.state, s.err = st, err
	s.failures++
	s.retryAt = s.m.now().Add(backoff(s.failures))
	if !s.reported {
		s.reported = true
		s.m.notice(err.Error())
	}
}

func backoff(failures int) time.Duration {
	d := firstBackoff
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// worked notes a successful call: the backoff starts over.
func (s *server) worked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = 0
}

// watch waits for a connection to end. An end nobody asked for is a
// crash: reported once, and the server is started again on next use.
func (s *server) watch(conn *connection) {
	<-conn.lost
	conn.end()
	conn.closeLog()
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(conn.settled)
	if s.cs != conn.cs || s.state != StateReady {
		return
	}
	s.cs = nil
	why := "its connection ended"
	if s.exit != nil {
		why = describeExit(*s.exit)
	}
	if last := s.stderr.Last(); last != "" {
		why += "; its last words on stderr: " + last
	}
	s.fail(StateStopped, fmt.Errorf("MCP server %s stopped (%s); its tools fail until shiro starts it again on next use", s.def.Name, why))
}

// stale marks lists the server said changed; they are read again at the
// next turn boundary.
func (s *server) stale(tools, prompts bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toolsStale = s.toolsStale || tools
	s.promptsStale = s.promptsStale || prompts
	if s.m.staleHook != nil {
		s.m.staleHook()
	}
}

// refresh re-reads the lists a running server said changed.
func (s *server) refresh(ctx context.Context) {
	s.mu.Lock()
	cs, tools, prompts := s.cs, s.toolsStale, s.promptsStale
	if s.state != StateReady || (!tools && !prompts) {
		s.mu.Unlock()
		return
	}
	s.toolsStale, s.promptsStale = false, false
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.m.startTimeout)
	defer cancel()
	var ts []*sdk.Tool
	var ps []*sdk.Prompt
	var err error
	if tools {
		ts, err = listTools(ctx, cs)
	}
	if err == nil && prompts {
		ps, err = listPrompts(ctx, cs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs != cs {
		return
	}
	if err != nil {
		s.m.notice(fmt.Sprintf("MCP server %s said its lists changed, but reading them failed: %v", s.def.Name, err))
		return
	}
	if tools {
		s.tools = ts
		s.version++
	}
	if prompts {
		s.prompts = ps
	}
}

// stop closes the connection for good.
func (s *server) stop() {
	s.mu.Lock()
	cs := s.cs
	s.state, s.cs = StateClosed, nil
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// call runs one tool call. A connection lost during the call is reported
// as the server stopping, not as the tool's failure.
func (s *server) call(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	settled := s.settled
	s.mu.Unlock()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		s.worked()
		return res, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || closed(settled) {
		// The connection is gone; wait for the watcher to say why.
		select {
		case <-settled:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		why := s.err
		s.mu.Unlock()
		if why == nil {
			why = errors.New("its connection ended")
		}
		return nil, fmt.Errorf("the call did not finish: %w", why)
	}
	return nil, fmt.Errorf("MCP server %s refused the call: %w", s.def.Name, err)
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// snapshot is a server's state for a report.
type snapshot struct {
	state     State
	err       error
	tools     int
	prompts   int
	resources bool
}

func (s *server) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state
	if st == StateIdle || st == StateNotApproved || st == StateChanged {
		if a, err := s.approval(); err != nil {
			return snapshot{state: a, err: err}
		}
		st = StateIdle
	}
	return snapshot{state: st, err: s.err, tools: len(s.tools), prompts: len(s.prompts), resources: s.resources}
}
