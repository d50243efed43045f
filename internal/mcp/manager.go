package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Defaults of Options.
const (
	DefaultStartTimeout = 30 * time.Second
	// DefaultBudget is the schema bytes (name, description and schema of
	// every server tool) above which the session switches to meta mode.
	DefaultBudget = 12 * 1024
)

// Options say how a session's servers are run.
type Options struct {
	Defs  []Def
	Trust *Trust
	// Root is the workspace root: the project approvals are keyed by, the
	// working directory of stdio servers, the root offered to servers.
	Root string
	// Environ is the environment stdio servers start from (the workspace's
	// command environment; shiro's own when nil). It is scrubbed again
	// here, so no caller can hand a server a token by mistake; a server's
	// own env, which the person wrote, is added after.
	Environ func() []string
	// Getenv supplies ${VAR} values in definitions.
	Getenv func(string) string
	// Passthrough is the user's env.passthrough: variables servers get,
	// and a project's definitions may expand, although they look secret.
	Passthrough []string
	// Launcher starts a project's stdio servers, as every command: the
	// sandbox, network off.
	Launcher proc.Launcher
	// NetLauncher starts the person's own stdio servers (their config,
	// --mcp-config, their editor): the same sandbox with the network on
	// (issue 28 §3). Nil starts them through Launcher.
	NetLauncher proc.Launcher
	// LogDir receives one <server>.log per server: its stderr and the
	// client's warnings, never the screen.
	LogDir string
	// AuthDir keeps OAuth tokens (0600 files); empty keeps none.
	AuthDir string
	// Authorize tells the person to open an authorization page; nil when
	// nobody can (a headless run), and then servers that need OAuth fail
	// with a message saying so.
	Authorize    func(server, url string)
	StartTimeout time.Duration
	// Budget is the schema bytes above which meta mode is used; zero is
	// DefaultBudget.
	Budget int
	// Notice reports what the person should know when it happens: a
	// server that failed or stopped (once per episode).
	Notice func(string)
	Now    func() time.Time
}

// Manager runs a session's MCP servers. Its methods are safe from any
// goroutine.
type Manager struct {
	servers      []*server
	trust        *Trust
	root         string
	getenv       func(string) string
	dialer       dialer
	logs         logs
	startTimeout time.Duration
	budget       int
	notify       func(string)
	now          func() time.Time
	life         context.Context
	end          context.CancelFunc

	// staleHook, when set (by tests), hears that a server said a list
	// changed.
	staleHook func()

	mu      sync.Mutex
	sig     string // the server versions the current tools were built from
	current []tool.Tool
	meta    bool
	bytes   map[string]int
	closed  bool
}

// New makes a manager; nothing starts until Start, Turn or a use.
func New(opts Options) *Manager {
	m := &Manager{
		trust: opts.Trust, root: opts.Root, getenv: opts.Getenv,
		logs: logs{dir: opts.LogDir}, startTimeout: opts.StartTimeout, budget: opts.Budget,
		notify: opts.Notice, now: opts.Now, bytes: map[string]int{},
	}
	if m.getenv == nil {
		m.getenv = os.Getenv
	}
	if m.startTimeout <= 0 {
		m.startTimeout = DefaultStartTimeout
	}
	if m.budget <= 0 {
		m.budget = DefaultBudget
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.trust == nil {
		m.trust = NewTrust("")
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ
	}
	m.dialer = dialer{root: opts.Root, environ: environ, passthrough: opts.Passthrough, launcher: opts.Launcher, netLauncher: opts.NetLauncher}
	if opts.AuthDir != "" || opts.Authorize != nil {
		m.dialer.auth = &authStore{dir: opts.AuthDir, authorize: opts.Authorize, notice: m.notice}
	}
	m.life, m.end = context.WithCancel(context.Background())
	for _, d := range opts.Defs {
		m.servers = append(m.servers, &server{def: d, m: m, state: StateIdle})
	}
	slices.SortFunc(m.servers, func(a, b *server) int { return strings.Compare(a.def.Name, b.def.Name) })
	return m
}

func (m *Manager) notice(text string) {
	if m.notify != nil {
		m.notify(text)
	}
}

// Defs are the servers the manager runs, by name.
func (m *Manager) Defs() []Def {
	out := make([]Def, len(m.servers))
	for i, s := range m.servers {
		out[i] = s.def
	}
	return out
}

func (m *Manager) server(name string) (*server, bool) {
	for _, s := range m.servers {
		if s.def.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Start starts, in parallel, every server that has not been tried yet and
// may start, and waits for each to be ready or to fail (each within its
// start timeout). Servers that failed or stopped and whose backoff has
// passed are started again in the background, without waiting.
func (m *Manager) Start(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range m.servers {
		s.mu.Lock()
		st, retry := s.state, s.m.now().After(s.retryAt)
		s.mu.Unlock()
		switch {
		case st == StateIdle || st == StateNotApproved || st == StateChanged:
			if _, err := s.approval(); err != nil {
				continue // announced when the session started
			}
			wg.Go(func() { _, _ = s.session(ctx) })
		case (st == StateFailed || st == StateStopped) && retry:
			go func() { _, _ = s.session(m.life) }()
		}
	}
	wg.Wait()
}

// Turn is the turn boundary: servers start (the first time), lists the
// servers said changed are read again, and when the tools differ from the
// last ones, the new set comes back with changed set.
func (m *Manager) Turn(ctx context.Context) (tools []tool.Tool, changed bool) {
	m.Start(ctx)
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(func() { s.refresh(ctx) })
	}
	wg.Wait()
	return m.build()
}

// Tools are the tools of the last build.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.current)
}

// build makes the session's MCP tools from what the servers last listed:
// every server tool, or, over the budget, the two meta tools with the
// server tools held back for them.
func (m *Manager) build() ([]tool.Tool, bool) {
	type listed struct {
		s     *server
		tools []*sdk.Tool
	}
	var all []listed
	var sig strings.Builder
	for _, s := range m.servers {
		s.mu.Lock()
		fmt.Fprintf(&sig, "%s:%d;", s.def.Name, s.version)
		all = append(all, listed{s: s, tools: s.tools})
		s.mu.Unlock()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current != nil && sig.String() == m.sig {
		return slices.Clone(m.current), false
	}
	var serverTools []*serverTool
	total := 0
	seen := map[string]bool{}
	for _, l := range all {
		for _, t := range l.tools {
			name := ToolName(l.s.def.Name, t.Name)
			if seen[name] {
				name = hashed(name, t.Name)
			}
			seen[name] = true
			st := newServerTool(l.s, t, name)
			total += st.bytes
			serverTools = append(serverTools, st)
		}
	}
	m.meta = total > m.budget
	m.bytes = map[string]int{}
	out := make([]tool.Tool, 0, len(serverTools)+2)
	for _, t := range serverTools {
		if m.meta {
			t.info.Set = deferredSet
		}
		m.bytes[t.srv.def.Name] += t.bytes
		out = append(out, t)
	}
	if m.meta {
		out = append(out, newSearchTool(serverTools), newCallTool(serverTools))
	}
	m.sig, m.current = sig.String(), out
	return slices.Clone(out), true
}

// Close stops every server and waits for them to go.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.stop)
	}
	wg.Wait()
	m.end()
}

// logs are the servers' log files.
type logs struct{ dir string }

// maxLogBytes is the size past which a server's log is started afresh.
const maxLogBytes = 1 << 20

func (l logs) path(name string) string {
	if l.dir == "" {
		return "(no log)"
	}
	return filepath.Join(l.dir, name+".log")
}

// open returns the server's log for appending; a log that cannot be
// opened discards what would go in it.
func (l logs) open(name string) (io.Writer, func()) {
	if l.dir == "" {
		return io.Discard, func() {}
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return io.Discard, func() {}
	}
	p := l.path(name)
	if fi, err := os.Stat(p); err == nil && fi.Size() > maxLogBytes {
		_ = os.Rename(p, p+".1")
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return io.Discard, func() {}
	}
	fmt.Fprintf(f, "--- %s\n", time.Now().Format(time.RFC3339))
	return f, sync.OnceFunc(func() { _ = f.Close() })
}
