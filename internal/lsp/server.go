package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/shiro-neko/shiro/internal/proc"
)

// stopGrace is how long a server gets to exit after shutdown and exit,
// and then again between SIGTERM and SIGKILL.
const stopGrace = 2 * time.Second

// launch is how a server process is started: the workspace's launcher
// (the sandbox) and the command environment.
type launch struct {
	root     string
	launcher proc.Launcher
	environ  []string
}

// server is one running language server: its process, the JSON-RPC
// connection over its stdio, and what it has reported.
type server struct {
	spec   Available
	proc   *proc.Process
	rpc    jsonrpc2.Conn
	remote protocol.Server
	store  *store
	docs   docs
	stderr *lastLine
	// life ends when the process does, so that no call waits on a dead
	// server.
	life   context.Context
	cancel context.CancelFunc
	// exitOnce guards result, which is set when the process has ended.
	mu     sync.Mutex
	result *proc.Result
	// started is when the process started; ready when initialize came back.
	started, ready time.Time
}

// start runs the server inside the workspace's launcher and initializes
// it, within ctx.
func start(ctx context.Context, a Available, l launch) (*server, error) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	life, cancel := context.WithCancel(context.Background())
	s := &server{spec: a, store: newStore(), life: life, cancel: cancel, stderr: &lastLine{}, started: time.Now()}
	s.docs.files = map[protocol.DocumentURI]*doc{}
	env := append([]string(nil), l.environ...)
	for k, v := range a.Env {
		env = append(env, k+"="+v)
	}
	p, err := proc.Start(life, proc.Spec{
		Argv: append([]string{a.Path}, a.Args...), Dir: l.root, Env: env, Launcher: l.launcher,
		StdinStream: stdinR,
		Stdout:      proc.Stream(func(b []byte) { _, _ = stdoutW.Write(b) }),
		Stderr:      proc.Stream(func(b []byte) { _, _ = s.stderr.Write(b) }),
		Grace:       stopGrace, NewSession: true, DieWithParent: true,
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("starting %s (%s): %w", a.Name, a.Path, err)
	}
	s.proc = p
	go func() {
		res := p.Wait()
		s.mu.Lock()
		s.result = &res
		s.mu.Unlock()
		_ = stdoutW.CloseWithError(io.EOF)
		_ = stdinR.Close()
		cancel()
	}()
	stream := jsonrpc2.NewStream(pipeConn{r: stdoutR, w: stdinW})
	h := handler{root: l.root, store: s.store}
	_, s.rpc, s.remote = protocol.NewClient(life, h, stream, zap.NewNop())
	if err := s.initialize(ctx, l.root); err != nil {
		s.close()
		return nil, err
	}
	s.ready = time.Now()
	return s, nil
}

func (s *server) initialize(ctx context.Context, root string) error {
	ctx, stop := s.bound(ctx)
	defer stop()
	_, err := s.remote.Initialize(ctx, &protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		ClientInfo: &protocol.ClientInfo{Name: "shiro"},
		//lint:ignore SA1019 servers that predate workspace folders (LSP 3.6) find the workspace only here
		RootURI: fileURI(root),
		//lint:ignore SA1019 as RootURI, for servers older still
		RootPath:              root,
		InitializationOptions: initOptions(s.spec.InitOptions),
		Capabilities:          capabilities(),
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(fileURI(root)), Name: "workspace"}},
	})
	if err != nil {
		return fmt.Errorf("initializing %s: %w%s", s.spec.Name, err, s.lastWords())
	}
	if err := s.remote.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		return fmt.Errorf("initializing %s: %w%s", s.spec.Name, err, s.lastWords())
	}
	return nil
}

// bound ties ctx to the server's life: a call on a server that died
// returns at once instead of waiting for its deadline.
func (s *server) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// exited returns how the process ended, or nil while it runs.
func (s *server) exited() *proc.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result
}

// lastWords is the server's last stderr line, for error messages.
func (s *server) lastWords() string {
	if w := s.stderr.String(); w != "" {
		return fmt.Sprintf(" (its last words: %q)", w)
	}
	return ""
}

// close asks the server to shut down and exit, and stops its process
// group when it does not within stopGrace.
func (s *server) close() {
	if s.exited() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
		bctx, stop := s.bound(ctx)
		if s.remote.Shutdown(bctx) == nil {
			_ = s.remote.Exit(bctx)
		}
		stop()
		cancel()
		select {
		case <-s.proc.Done():
		case <-time.After(stopGrace):
		}
	}
	s.cancel()
	<-s.proc.Done()
	_ = s.rpc.Close()
}

// pipeConn is the server's stdio as one connection.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (c pipeConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c pipeConn) Write(b []byte) (int, error) { return c.w.Write(b) }
func (c pipeConn) Close() error {
	_ = c.w.Close()
	return c.r.Close()
}

// lastLine keeps the last non-empty line a server wrote to stderr.
type lastLine struct {
	mu   sync.Mutex
	last []byte
	cur  []byte
}

func (l *lastLine) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range b {
		if c == '\n' {
			if len(bytes.TrimSpace(l.cur)) > 0 {
				l.last = append(l.last[:0], l.cur...)
			}
			l.cur = l.cur[:0]
			continue
		}
		if len(l.cur) < 1024 {
			l.cur = append(l.cur, c)
		}
	}
	return len(b), nil
}

func (l *lastLine) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(bytes.TrimSpace(l.cur)) > 0 {
		return string(bytes.TrimSpace(l.cur))
	}
	return string(bytes.TrimSpace(l.last))
}
