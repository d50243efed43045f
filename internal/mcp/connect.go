package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/version"
)

// connection is one started server.
type connection struct {
	cs      *sdk.ClientSession
	lost    chan struct{}
	settled chan struct{}
	// end ends the connection's context (its stream, its process).
	end       context.CancelFunc
	tools     []*sdk.Tool
	prompts   []*sdk.Prompt
	resources bool
	closeLog  func()
}

// close ends the connection and waits for it to be gone.
func (c *connection) close() {
	_ = c.cs.Close()
	<-c.lost
	c.end()
	c.closeLog()
}

// connect starts the server and lists what it offers, all within the
// start timeout. The connection lives on a context of its own, not ctx:
// a transport may tie its stream (SSE) or its process (stdio) to the
// context it connected with, and the connection must outlive the start.
// The timeout and ctx end that context only while the start runs.
func (s *server) connect(ctx context.Context) (*connection, error) {
	launch, warnings, err := Expand(s.def, s.m.getenv, s.m.dialer.passthrough)
	if err != nil {
		return nil, err
	}
	log, closeLog := s.m.logs.open(s.def.Name)
	for _, w := range warnings {
		fmt.Fprintln(log, w)
		s.m.notice(w)
	}
	stderr := &tail{out: log}
	s.mu.Lock()
	s.stderr, s.exit = stderr, nil
	s.mu.Unlock()
	life, end := context.WithCancel(s.m.life)
	t, err := s.m.dialer.transport(life, s.def, launch, stderr)
	if err != nil {
		end()
		closeLog()
		return nil, fmt.Errorf("MCP server %s: %w", s.def.Name, err)
	}
	st, _ := t.(*stdioTransport)
	if st != nil {
		st.exited = s.exited
	}
	fmt.Fprintln(log, s.describeStart())
	// gone stops a server whose start failed and waits until its end is
	// recorded (with what the sandbox says of it), so the error can tell.
	gone := func() {
		end()
		if st != nil {
			st.wait()
		}
	}
	timeout := s.m.startTimeout
	if s.def.StartTimeout > 0 {
		timeout = s.def.StartTimeout
	}
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() { timedOut.Store(true); end() })
	defer timer.Stop()
	// A sign-in (OAuth) during the start holds the timeout off.
	life = context.WithValue(life, startClockKey{}, &startClock{timer: timer})
	stopWithCaller := context.AfterFunc(ctx, end)
	defer stopWithCaller()
	client := sdk.NewClient(&sdk.Implementation{Name: "shiro", Version: version.Version}, &sdk.ClientOptions{
		Logger:                   slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		ToolListChangedHandler:   func(context.Context, *sdk.ToolListChangedRequest) { s.stale(true, false) },
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { s.stale(false, true) },
	})
	// The workspace is the one root offered, so servers that honour roots
	// (the reference filesystem server) keep to it. Roots are deprecated
	// from protocol 2026-07-28 on, but the servers people use today read
	// them.
	//lint:ignore SA1019 see above: servers in use still read roots
	client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.m.root)}).String(), Name: "workspace"})
	conn := &connection{lost: make(chan struct{}), settled: make(chan struct{}), closeLog: closeLog, end: end}
	cs, err := client.Connect(life, t, nil)
	if err != nil {
		gone()
		return nil, s.failedStart(log, closeLog, s.startError(ctx, timedOut.Load(), timeout, err))
	}
	conn.cs = cs
	go func() {
		_ = cs.Wait()
		close(conn.lost)
	}()
	err = conn.list(life)
	if err == nil && (!timer.Stop() || !stopWithCaller()) {
		err = errors.New("the start was cut short")
	}
	if err != nil {
		_ = cs.Close()
		<-conn.lost
		gone()
		return nil, s.failedStart(log, closeLog, s.startError(ctx, timedOut.Load(), timeout, err))
	}
	return conn, nil
}

// list reads the server's tools and prompts.
func (c *connection) list(ctx context.Context) error {
	caps := c.cs.InitializeResult().Capabilities
	if caps == nil {
		return nil
	}
	if caps.Tools != nil {
		tools, err := listTools(ctx, c.cs)
		if err != nil {
			return err
		}
		c.tools = tools
	}
	if caps.Prompts != nil {
		prompts, err := listPrompts(ctx, c.cs)
		if err != nil {
			return err
		}
		c.prompts = prompts
	}
	c.resources = caps.Resources != nil
	return nil
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

func listPrompts(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Prompt, error) {
	var out []*sdk.Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing prompts: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// describeStart is the log's line on what is started, and how: the
// definition as written (its ${VAR} values are not logged), and whether
// it has the network.
func (s *server) describeStart() string {
	switch l := s.def.Launch.(type) {
	case Stdio:
		network := "network off, as for commands: a project's server"
		if s.m.dialer.networked(s.def) {
			network = "network on: your own server"
		} else if s.m.dialer.netLauncher == nil {
			network = "as commands run"
		}
		return fmt.Sprintf("starting %s over stdio from %s, in the sandbox (%s)", strings.Join(append([]string{l.Command}, l.Args...), " "), s.def.Source, network)
	case HTTP:
		return fmt.Sprintf("connecting to %s (Streamable HTTP) from %s", l.URL, s.def.Source)
	case SSE:
		return fmt.Sprintf("connecting to %s (SSE) from %s", l.URL, s.def.Source)
	}
	return "starting"
}

// failedStart writes why a start failed into the server's log, closes
// it, and returns err.
func (s *server) failedStart(log io.Writer, closeLog func(), err error) error {
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintln(log, err)
	}
	closeLog()
	return err
}

// startError says why a start failed: the timeout, the process's exit, or
// the protocol's error, with the server's last line on stderr.
func (s *server) startError(ctx context.Context, timedOut bool, timeout time.Duration, err error) error {
	s.mu.Lock()
	exit, lines := s.exit, s.stderr.Lines()
	s.mu.Unlock()
	var msg string
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case timedOut:
		// Checked before the exit: a server that hung is stopped, and
		// then it has exited too.
		msg = fmt.Sprintf("did not answer within %s", timeout)
	case exit != nil:
		msg = "exited before it answered (" + describeExit(*exit) + ")"
	default:
		msg = err.Error()
	}
	confinement := ""
	if exit != nil {
		confinement = exit.Confinement
	}
	if why := s.contained(confinement, timedOut); why != "" {
		msg += "; " + why
	}
	// The sandbox's line is added to the server's stderr too: shown once.
	lines = slices.DeleteFunc(lines, func(l string) bool { return confinement != "" && strings.Contains(confinement, l) })
	if len(lines) > 0 {
		msg += "; its stderr ends: " + strings.Join(lines, " | ")
	}
	return fmt.Errorf("MCP server %s did not start: %s (log: %s)", s.def.Name, msg, s.m.logs.path(s.def.Name))
}

// contained says what the sandbox may have refused a stdio server that
// failed to start: what it said of the server's end (a path, the
// network), and for a server without the network that hung or failed,
// that it had none and how to give it some.
func (s *server) contained(confinement string, timedOut bool) string {
	if _, ok := s.def.Launch.(Stdio); !ok {
		return confinement
	}
	if s.m.dialer.networked(s.def) {
		return confinement
	}
	offline := "it ran without the network, as a project's servers do even when approved (one you define yourself, with `shiro mcp add`, gets it)"
	switch {
	case confinement != "" && strings.Contains(confinement, "network"):
		return strings.TrimPrefix(confinement, "shiro sandbox: ") + "; " + offline
	case confinement != "":
		return confinement
	case timedOut && s.m.dialer.netLauncher != nil:
		return "if it was downloading or calling out, " + offline
	}
	return ""
}

// exited records how a stdio server's process ended; it runs before the
// connection sees the end of the output, so a crash report can say it.
func (s *server) exited(res proc.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exit = &res
}

func describeExit(r proc.Result) string {
	switch {
	case r.Exit.Signal != 0:
		return "killed by " + r.Exit.Signal.String()
	case r.Exit.Code >= 0:
		return fmt.Sprintf("exit status %d", r.Exit.Code)
	}
	return "it ended"
}
