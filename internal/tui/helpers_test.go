package tui

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
)

// testEnv is a workspace and a SHIRO_HOME, both temporary.
type testEnv struct {
	work, home string
	env        map[string]string
}

func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return &testEnv{work: work, home: home, env: map[string]string{
		"SHIRO_HOME": home, "PATH": os.Getenv("PATH"), "HOME": home,
	}}
}

func (e *testEnv) getenv(k string) string { return e.env[k] }

// open assembles a real app in the workspace: the replay provider plays
// cassette (a file under testdata) unless provider is given.
func (e *testEnv) open(t testing.TB, flags config.Flags, provider llm.Provider) (*app.App, *Approver) {
	t.Helper()
	loaded, err := app.Load(e.getenv, e.work, flags)
	if err != nil {
		t.Fatal(err)
	}
	approver := NewApprover()
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Approver: approver, Asker: approver,
		BackgroundOutput: approver.BackgroundOutput(), Provider: provider})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	// Commands get the test's HOME, so the machine's login files (slow,
	// and not ours) stay out of them.
	a.Env.ShellEnv = append(os.Environ(), "HOME="+e.home)
	return a, approver
}

func replayFlags(t testing.TB, cassette string) config.Flags {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", cassette))
	if err != nil {
		t.Fatal(err)
	}
	return config.Flags{Provider: "replay", Cassette: abs}
}

// driver runs the model the way tea.Program does (messages in, commands
// out on goroutines) but without a terminal, and keeps the latest frame as
// plain text for assertions. Tests type real key messages into it.
type driver struct {
	t    *testing.T
	m    *model
	msgs chan tea.Msg

	mu      sync.Mutex
	frame   string
	quit    bool
	changed chan struct{} // closed and replaced on every new frame
}

// probeMsg runs f on the driver's goroutine, where the model lives.
type probeMsg struct {
	f    func(*model)
	done chan struct{}
}

const testWidth, testHeight = 100, 32

func startDriver(t *testing.T, a *app.App, approver *Approver, opts Options) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	m := newModel(ctx, a, approver, opts)
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), changed: make(chan struct{})}
	go d.loop()
	d.send(tea.WindowSizeMsg{Width: testWidth, Height: testHeight})
	d.exec(m.Init())
	t.Cleanup(func() {
		cancel()
		m.shutdown()
	})
	return d
}

func (d *driver) loop() {
	for msg := range d.msgs {
		if p, ok := msg.(probeMsg); ok {
			p.f(d.m)
			close(p.done)
			continue
		}
		if _, ok := msg.(tea.QuitMsg); ok {
			d.mu.Lock()
			d.quit = true
			d.mu.Unlock()
		}
		_, cmd := d.m.Update(msg)
		d.exec(cmd)
		frame := ansi.Strip(d.m.frame())
		d.mu.Lock()
		d.frame = frame
		close(d.changed)
		d.changed = make(chan struct{})
		d.mu.Unlock()
	}
}

// exec runs a command like tea.Program: on its own goroutine, its message
// fed back in; batches fan out.
func (d *driver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.exec(c)
			}
			return
		}
		if msg != nil {
			select {
			case d.msgs <- msg:
			case <-d.t.Context().Done():
			}
		}
	}()
}

func (d *driver) send(msg tea.Msg) { d.msgs <- msg }

// inspect runs f with the model on its goroutine and waits.
func (d *driver) inspect(f func(*model)) {
	done := make(chan struct{})
	d.send(probeMsg{f: f, done: done})
	<-done
}

// typeText types s one key at a time.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// press sends a named key: enter, esc, tab, up, down, pgup, pgdown,
// backspace, ctrl+c, ctrl+r, or a single character.
func (d *driver) press(name string) {
	d.send(keyMsg(name))
}

func keyMsg(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+r":
		return tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// submit types a line and presses enter.
func (d *driver) submit(s string) {
	d.typeText(s)
	d.press("enter")
}

// waitFor waits until the frame satisfies cond, failing after a timeout.
func (d *driver) waitFor(what string, cond func(frame string) bool) string {
	d.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		d.mu.Lock()
		frame, changed := d.frame, d.changed
		d.mu.Unlock()
		if cond(frame) {
			return frame
		}
		select {
		case <-changed:
		case <-deadline.C:
			d.t.Fatalf("timed out waiting for %s; last frame:\n%s", what, frame)
		}
	}
}

// waitText waits until every string shows on screen.
func (d *driver) waitText(want ...string) string {
	d.t.Helper()
	return d.waitFor(strings.Join(want, ", "), func(f string) bool {
		for _, w := range want {
			if !strings.Contains(f, w) {
				return false
			}
		}
		return true
	})
}

// waitIdle waits until no turn is running.
func (d *driver) waitIdle() string {
	d.t.Helper()
	return d.waitFor("the turn to end", func(string) bool {
		idle := false
		d.inspect(func(m *model) { idle = m.turn == nil })
		return idle
	})
}

func (d *driver) quitted() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.quit
}

// gatedProvider streams scripted responses; a response pauses at each
// gate part until the test releases it, so tests see a turn mid-stream.
type gatedProvider struct {
	mu      sync.Mutex
	resp    [][]llm.StreamPart
	next    int
	release chan struct{}
}

func newGatedProvider(resp ...[]llm.StreamPart) *gatedProvider {
	return &gatedProvider{resp: resp, release: make(chan struct{}, 16)}
}

func (p *gatedProvider) Name() string { return "gated" }

func (p *gatedProvider) Stream(ctx context.Context, _ *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		p.mu.Lock()
		if p.next >= len(p.resp) {
			p.mu.Unlock()
			yield(nil, context.Canceled)
			return
		}
		r := p.resp[p.next]
		p.next++
		p.mu.Unlock()
		for _, part := range r {
			if _, ok := part.(gate); ok {
				select {
				case <-p.release:
				case <-ctx.Done():
					yield(nil, ctx.Err())
					return
				}
				continue
			}
			if !yield(part, nil) {
				return
			}
		}
	}
}

// gate is a stream part that pauses the gated provider.
type gate struct{ llm.Finish }
