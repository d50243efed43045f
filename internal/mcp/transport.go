package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/secrets"
)

// stopGrace is how long a stdio server gets to exit once its stdin is
// closed, and then again between SIGTERM and SIGKILL.
const stopGrace = 2 * time.Second

// dialer builds the SDK transport for one server start.
type dialer struct {
	root        string
	environ     func() []string
	passthrough []string
	launcher    proc.Launcher
	netLauncher proc.Launcher
	auth        *authStore
}

// networked reports whether a stdio server of def gets the network: the
// person's own do (they wrote the definition, and chose the program it
// runs); a project's never do, approved or not, since an approval binds
// the definition but not the code it runs (`node ./server.js` from the
// repository can change under it), and the network is what turns reading
// the disk into sending it away.
func (d dialer) networked(def Def) bool {
	return d.netLauncher != nil && !def.Origin.NeedsApproval()
}

// launcherFor is how a stdio server of def is started.
func (d dialer) launcherFor(def Def) proc.Launcher {
	if d.networked(def) {
		return d.netLauncher
	}
	return d.launcher
}

// transport returns how to reach a server whose definition was expanded
// into l. A stdio server's process is tied to life: when it ends, so does
// the process group.
func (d dialer) transport(life context.Context, def Def, l Launch, stderr io.Writer) (sdk.Transport, error) {
	switch l := l.(type) {
	case Stdio:
		dir := d.root
		if l.Cwd != "" {
			dir = l.Cwd
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(d.root, dir)
			}
		}
		// A server with the network gets no secret but those its own
		// definition names: env.passthrough hands variables to commands,
		// which cannot send them anywhere.
		passthrough := d.passthrough
		if d.networked(def) {
			passthrough = nil
		}
		env := secrets.ScrubEnviron(d.environ(), passthrough)
		for k, v := range l.Env {
			env = append(env, k+"="+v)
		}
		return &stdioTransport{
			life: life, stderr: stderr, launcher: d.launcherFor(def), done: make(chan struct{}),
			argv: append([]string{l.Command}, l.Args...), dir: dir, env: env,
		}, nil
	case HTTP:
		client, err := d.httpClient(l.Endpoint)
		if err != nil {
			return nil, err
		}
		t := &sdk.StreamableClientTransport{Endpoint: l.URL, HTTPClient: client, MaxRetries: 2}
		if d.auth != nil {
			h, err := d.auth.handler(def.Name, l.Endpoint)
			if err != nil {
				return nil, err
			}
			if h != nil {
				t.OAuthHandler = h
			}
		}
		return t, nil
	case SSE:
		client, err := d.httpClient(l.Endpoint)
		if err != nil {
			return nil, err
		}
		return &sdk.SSEClientTransport{Endpoint: l.URL, HTTPClient: client}, nil
	}
	return nil, fmt.Errorf("unknown transport %T", l)
}

// httpClient sends the server's headers with every request.
func (d dialer) httpClient(e Endpoint) (*http.Client, error) {
	if !isHTTPURL(e.URL) {
		return nil, fmt.Errorf("url %q is not an http:// or https:// address", e.URL)
	}
	if len(e.Headers) == 0 {
		return http.DefaultClient, nil
	}
	return &http.Client{Transport: headerTransport{headers: e.Headers, next: http.DefaultTransport}}, nil
}

// headerTransport adds configured headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

// stdioTransport runs a server through internal/proc, so it gets the same
// containment as every command shiro runs: a process group of its own,
// the workspace's Launcher (the sandbox seam), death with shiro.
type stdioTransport struct {
	life     context.Context
	argv     []string
	dir      string
	env      []string
	launcher proc.Launcher
	stderr   io.Writer
	// exited receives how the process ended, once.
	exited func(proc.Result)
	// done is closed once the process has ended and exited has run;
	// started says Connect started it.
	done    chan struct{}
	started atomic.Bool
}

// wait waits for the process, once stopped, to be gone and its end
// recorded; at once when it never started.
func (t *stdioTransport) wait() {
	if t.started.Load() {
		<-t.done
	}
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	ctx, cancel := context.WithCancel(t.life)
	p, err := proc.Start(ctx, proc.Spec{
		Argv: t.argv, Dir: t.dir, Env: t.env, Launcher: t.launcher,
		StdinStream: stdinR,
		Stdout:      proc.Stream(func(b []byte) { _, _ = stdoutW.Write(b) }),
		Stderr:      proc.Stream(func(b []byte) { _, _ = t.stderr.Write(b) }),
		Grace:       stopGrace, NewSession: true, DieWithParent: true,
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("starting %s: %w", t.argv[0], err)
	}
	t.started.Store(true)
	go func() {
		res := p.Wait()
		// How it ended is recorded before the connection sees the end of
		// the output, so that whoever hears of the end can say why.
		if t.exited != nil {
			t.exited(res)
		}
		close(t.done)
		_ = stdoutW.CloseWithError(io.EOF)
		_ = stdinR.Close()
		cancel()
	}()
	stdin := &stdinCloser{w: stdinW, p: p, cancel: cancel}
	return (&sdk.IOTransport{Reader: stdoutR, Writer: stdin}).Connect(ctx)
}

// stdinCloser ends a stdio server as the protocol asks: close its stdin,
// give it stopGrace to exit, then stop its group (SIGTERM, stopGrace,
// SIGKILL).
type stdinCloser struct {
	w      *io.PipeWriter
	p      *proc.Process
	cancel context.CancelFunc
	once   sync.Once
}

func (s *stdinCloser) Write(b []byte) (int, error) { return s.w.Write(b) }

func (s *stdinCloser) Close() error {
	s.once.Do(func() {
		_ = s.w.Close()
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case <-s.p.Done():
		case <-grace.C:
			s.cancel()
			<-s.p.Done()
		}
	})
	return nil
}

// tailLines is how many of a server's last lines on stderr a failure
// shows: enough for an error and the lines that explain it.
const tailLines = 6

// tail keeps the last lines a server wrote to stderr, so that a crash or
// a failed start can be reported with the server's own last words.
type tail struct {
	mu    sync.Mutex
	out   io.Writer
	lines []string
	cur   []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range b {
		if c == '\n' {
			if line := strings.TrimSpace(string(t.cur)); line != "" {
				t.lines = append(t.lines, line)
				if len(t.lines) > tailLines {
					t.lines = t.lines[1:]
				}
			}
			t.cur = t.cur[:0]
			continue
		}
		if len(t.cur) < 4096 {
			t.cur = append(t.cur, c)
		}
	}
	if t.out != nil {
		return t.out.Write(b)
	}
	return len(b), nil
}

// Lines are the last non-blank lines (tailLines at most, the one still
// unfinished included), each cut at 200 bytes.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := slices.Clone(t.lines)
	if line := strings.TrimSpace(string(t.cur)); line != "" {
		lines = append(lines, line)
		if len(lines) > tailLines {
			lines = lines[1:]
		}
	}
	for i, l := range lines {
		if len(l) > 200 {
			lines[i] = l[:200] + "…"
		}
	}
	return lines
}

// Last is the last complete non-blank line, at most 200 bytes.
func (t *tail) Last() string {
	lines := t.Lines()
	if len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}
