// Package lsp runs the workspace's language servers (gopls,
// typescript-language-server, pyright, rust-analyzer, clangd, or what the
// user's `lsp` config names) and puts what they know in front of the
// model: the errors an edit introduced, in the edit's own result, and
// definition, references, hover, symbols and diagnostics as tools.
//
// Servers start lazily, on the first edit or navigation call for a file
// they answer for, inside the workspace's launcher (the sandbox), like
// every command shiro runs. The protocol is go.lsp.dev's: its types,
// dispatchers and JSON-RPC 2 framing. Every request has a deadline, so a
// hung server costs a turn seconds, never the turn; a server that dies is
// restarted once, and after a second death it is reported and left off.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Options configure a Manager.
type Options struct {
	// Root is the workspace root; servers run there.
	Root string
	// Servers are the servers Detect found for the workspace.
	Servers []Available
	// Launcher confines the servers (the workspace's sandbox).
	Launcher proc.Launcher
	// Environ is the environment servers start from.
	Environ func() []string
	// StartTimeout bounds a server's start and initialize; RequestTimeout
	// every request after; DiagnosticsWait how long an edit waits for the
	// server's report on the files it changed. Zero takes the defaults.
	StartTimeout, RequestTimeout, DiagnosticsWait time.Duration
}

// The defaults leave room for a first start on a loaded machine (gopls
// loads the module) while keeping a hung server's cost bounded.
const (
	defaultStartTimeout    = 60 * time.Second
	defaultRequestTimeout  = 15 * time.Second
	defaultDiagnosticsWait = 10 * time.Second
)

// Manager owns the session's language servers.
type Manager struct {
	opts  Options
	slots []*slot
	turn  turnState
}

// New returns a manager for the servers in opts; none is started yet.
func New(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = defaultRequestTimeout
	}
	if opts.DiagnosticsWait <= 0 {
		opts.DiagnosticsWait = defaultDiagnosticsWait
	}
	if opts.Environ == nil {
		opts.Environ = func() []string { return nil }
	}
	m := &Manager{opts: opts}
	for _, a := range opts.Servers {
		m.slots = append(m.slots, &slot{spec: a, files: map[string]bool{}})
	}
	m.turn.origin = map[string]baseline{}
	return m
}

// Active reports whether any server may run: the LSP tools are offered
// only then.
func (m *Manager) Active() bool { return m != nil && len(m.slots) > 0 }

// slotFor returns the slot of the server answering for path, or nil.
func (m *Manager) slotFor(path string) *slot {
	if m == nil {
		return nil
	}
	for _, s := range m.slots {
		if s.spec.Handles(path) {
			return s
		}
	}
	return nil
}

// abs resolves a path as the model gives it against the workspace root.
func (m *Manager) abs(path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.Root, path)
	}
	return filepath.Clean(path)
}

// rel shows a path relative to the workspace when it lies inside.
func (m *Manager) rel(path string) string {
	if r, err := filepath.Rel(m.opts.Root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// Close shuts every server down.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	var wg sync.WaitGroup
	for _, s := range m.slots {
		wg.Go(s.stop)
	}
	wg.Wait()
}

// State is where a server is in its life.
type State string

const (
	Idle     State = "not started"
	Starting State = "starting"
	Running  State = "running"
	Failed   State = "stopped"
)

// slot is one configured server and its current process, if any.
type slot struct {
	spec Available
	// starting serializes starts; mu guards the fields below and is never
	// held across a start, so /lsp can show "starting" meanwhile.
	starting sync.Mutex

	mu       sync.Mutex
	closed   bool
	srv      *server
	state    State
	restarts int
	// failure says why the server is off for good; reported is set once
	// an edit's result has said so.
	failure  string
	reported bool
	// notice is a restart to mention in the next edit result.
	notice string
	files  map[string]bool
	// startup is how long the last start took, to initialize's answer.
	startup time.Duration
}

// errOff is a server that is off for the rest of the session.
var errOff = errors.New("language server is off")

// get returns the running server, starting it the first time and
// restarting it once after it died.
func (s *slot) get(ctx context.Context, m *Manager) (*server, error) {
	s.starting.Lock()
	defer s.starting.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%w: the session is ending", errOff)
	}
	if s.failure != "" {
		return nil, fmt.Errorf("%w: %s", errOff, s.failure)
	}
	if s.srv != nil {
		res := s.srv.exited()
		if res == nil {
			return s.srv, nil
		}
		died := fmt.Sprintf("%s exited (%s)%s", s.spec.Name, res.Exit, s.srv.lastWords())
		s.srv.close()
		s.srv = nil
		if s.restarts >= 1 {
			s.state = Failed
			s.failure = died + " after it had been restarted once; it is not restarted again, so " +
				"language-server diagnostics and navigation for " + strings.Join(s.spec.Files, " ") +
				" are off for this session (run the build or tests to check those files)"
			return nil, fmt.Errorf("%w: %s", errOff, s.failure)
		}
		s.restarts++
		s.notice = died + "; it was restarted"
	}
	s.state = Starting
	s.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	srv, err := start(sctx, s.spec, launch{root: m.opts.Root, launcher: m.opts.Launcher, environ: m.opts.Environ()})
	s.mu.Lock()
	if err == nil && s.closed {
		srv.close() // the session ended while it started
		return nil, fmt.Errorf("%w: the session is ending", errOff)
	}
	if err != nil {
		if ctx.Err() != nil {
			// The caller gave up (the turn was interrupted): not the
			// server's fault, and it may start next time.
			s.state = Idle
			return nil, err
		}
		s.state = Failed
		s.failure = err.Error()
		return nil, fmt.Errorf("%w: %s", errOff, s.failure)
	}
	s.srv, s.state, s.startup = srv, Running, srv.ready.Sub(srv.started)
	return srv, nil
}

// takeNotice returns, once, what the model should hear about the server:
// a restart, or that it is off for good.
func (s *slot) takeNotice() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	if s.srv != nil {
		if said := s.srv.store.takeSaid(); len(said) > 0 {
			parts = append(parts, s.spec.Name+" says: "+strings.Join(said, "; "))
		}
	}
	switch {
	case s.notice != "":
		parts = append(parts, s.notice)
		s.notice = ""
	case s.failure != "" && !s.reported:
		s.reported = true
		parts = append(parts, s.failure)
	}
	return strings.Join(parts, "\n")
}

// touch records a file the server was asked about, for /lsp.
func (s *slot) touch(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = true
}

func (s *slot) stop() {
	s.mu.Lock()
	s.closed = true
	srv := s.srv
	s.srv = nil
	if s.state == Running || s.state == Starting {
		s.state = Idle
	}
	s.mu.Unlock()
	if srv != nil {
		srv.close()
	}
}

// Status is one server's state for /lsp and `shiro lsp`.
type Status struct {
	Name, Command string
	Files         []string
	State         State
	// PID is the server process while it runs.
	PID      int
	Restarts int
	// Startup is how long its last start took; Opened the files it was
	// asked about; Failure why it is off.
	Startup time.Duration
	Opened  []string
	Failure string
}

// Status reports every server.
func (m *Manager) Status() []Status {
	if m == nil {
		return nil
	}
	var out []Status
	for _, s := range m.slots {
		s.mu.Lock()
		st := Status{
			Name: s.spec.Name, Command: strings.Join(append([]string{s.spec.Path}, s.spec.Args...), " "),
			Files: s.spec.Files, State: s.state, Restarts: s.restarts, Startup: s.startup, Failure: s.failure,
		}
		if st.State == "" {
			st.State = Idle
		}
		if s.srv != nil {
			if s.srv.exited() != nil {
				st.State = "exited"
			} else {
				st.PID = s.srv.proc.PID()
			}
		}
		for f := range s.files {
			st.Opened = append(st.Opened, m.rel(f))
		}
		s.mu.Unlock()
		slices.Sort(st.Opened)
		out = append(out, st)
	}
	return out
}
