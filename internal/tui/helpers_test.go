package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// waitLimit is how long a test waits for something that should happen
// before it fails. It only bounds a failure: a passing test never waits it
// out, so it can be generous for a loaded machine.
const waitLimit = 60 * time.Second

// driver runs the model the way tea.Program does (messages in, commands
// out on goroutines) but without a terminal, and keeps the latest frame as
// plain text for assertions. Tests type real key messages into it.
type driver struct {
	t     *testing.T
	m     *model
	s     Session
	msgs  chan tea.Msg
	clock *testClock

	mu      sync.Mutex
	frame   string
	quit    bool
	dones   int           // DoneEvents the model has applied
	changed chan struct{} // closed and replaced on every new frame
}

// probeMsg runs f on the driver's goroutine, where the model lives.
type probeMsg struct {
	f    func(*model)
	done chan struct{}
}

const testWidth, testHeight = 100, 32

// startDriver shows session s in a driver. When the test ends the session
// is interrupted and shut down as Run does, and its events are drained.
func startDriver(t *testing.T, s Session, opts Options) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	box := newInbox()
	p := startPump(s, box)
	clock := newTestClock()
	if opts.Clock == nil {
		opts.Clock = clock.now
	}
	m := newModel(ctx, s, box, opts)
	d := &driver{t: t, m: m, s: s, msgs: make(chan tea.Msg, 256), changed: make(chan struct{}), clock: clock}
	go d.loop(ctx)
	d.send(tea.WindowSizeMsg{Width: testWidth, Height: testHeight})
	d.exec(ctx, m.Init())
	t.Cleanup(func() {
		cancel()
		p.shutdown(s, shutdownWait)
	})
	return d
}

func (d *driver) loop(ctx context.Context) {
	for {
		var msg tea.Msg
		select {
		case msg = <-d.msgs:
		case <-ctx.Done():
			return
		}
		if p, ok := msg.(probeMsg); ok {
			p.f(d.m)
			close(p.done)
			continue
		}
		_, cmd := d.m.Update(msg)
		d.exec(ctx, cmd)
		frame := ansi.Strip(d.m.frame())
		d.mu.Lock()
		if _, ok := msg.(tea.QuitMsg); ok {
			d.quit = true
		}
		if b, ok := msg.(*inboxMsg); ok {
			for _, it := range b.items {
				if _, done := it.(protocol.DoneEvent); done {
					d.dones++
				}
			}
		}
		d.frame = frame
		close(d.changed)
		d.changed = make(chan struct{})
		d.mu.Unlock()
	}
}

// exec runs a command like tea.Program: on its own goroutine, its message
// fed back in; batches fan out.
func (d *driver) exec(ctx context.Context, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.exec(ctx, c)
			}
			return
		}
		if msg != nil {
			select {
			case d.msgs <- msg:
			case <-ctx.Done():
			}
		}
	}()
}

func (d *driver) send(msg tea.Msg) {
	select {
	case d.msgs <- msg:
	case <-d.t.Context().Done():
	}
}

// inspect runs f with the model on its goroutine and waits.
func (d *driver) inspect(f func(*model)) {
	done := make(chan struct{})
	d.send(probeMsg{f: f, done: done})
	select {
	case <-done:
	case <-d.t.Context().Done():
	}
}

// typeText types s one key at a time, each after a pause: a person who
// reads what is on screen before each key (an open prompt is armed by
// then; see guard.go).
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.clock.advance(promptGrace)
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// typeFast types s with no pause at all, as someone typing on while a
// prompt opens.
func (d *driver) typeFast(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// press sends a named key, after a pause: enter, esc, tab, up, down,
// pgup, pgdown, backspace, space, ctrl+c, ctrl+r, or a single character.
func (d *driver) press(name string) {
	d.clock.advance(promptGrace)
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
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
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

// waitFor waits until the frame satisfies cond.
func (d *driver) waitFor(what string, cond func(frame string) bool) string {
	d.t.Helper()
	deadline := time.NewTimer(waitLimit)
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

// waitModel waits until cond holds for the model, checked on the model's
// goroutine after every update.
func (d *driver) waitModel(what string, cond func(m *model) bool) string {
	d.t.Helper()
	return d.waitFor(what, func(string) bool {
		ok := false
		d.inspect(func(m *model) { ok = cond(m) })
		return ok
	})
}

// waitDone waits until the model has applied n DoneEvents in all: n turns
// have ended on screen. It returns the frame after that.
func (d *driver) waitDone(n int) string {
	d.t.Helper()
	return d.waitFor(fmt.Sprintf("%d turns to end", n), func(string) bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.dones >= n
	})
}

func (d *driver) quitted() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.quit
}

// testClock is the UI's clock in tests: it moves only when a test moves
// it, so the typing guard and the ctrl-c window are tested without
// waiting.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeSession is a scripted Session: the test emits events, and every op
// the UI submits is recorded in order. Shutdown closes the events.
type fakeSession struct {
	events chan protocol.Event
	opc    chan protocol.Op // every op, for tests that wait for one

	mu     sync.Mutex
	ops    []protocol.Op
	closed bool
	// refuse, when set, is Submit's answer to an op (nil accepts it).
	refuse func(protocol.Op) error
	// ids are the ids Submit gave the commands and turns not yet answered,
	// in order, for stamping the events a test emits (stamp).
	ids []sentOp
}

// sentOp is an op the fake took and the id it gave it.
type sentOp struct {
	id string
	op protocol.Op
}

// newFakeSession starts a scripted session that has described itself
// (testDescription) and announced testCommands.
func newFakeSession(t *testing.T) *fakeSession {
	t.Helper()
	s := &fakeSession{events: make(chan protocol.Event, 1024), opc: make(chan protocol.Op, 1024)}
	s.emit(testDescription(), protocol.CommandsEvent{Commands: testCommands()})
	return s
}

func (s *fakeSession) Events() <-chan protocol.Event { return s.events }

func (s *fakeSession) Submit(op protocol.Op) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", protocol.ErrClosed
	}
	if s.refuse != nil {
		if err := s.refuse(op); err != nil {
			return "", err
		}
	}
	s.ops = append(s.ops, op)
	id := fmt.Sprintf("op%d", len(s.ops))
	switch op.(type) {
	case protocol.Command, protocol.UserTurn:
		s.ids = append(s.ids, sentOp{id, op})
	}
	s.opc <- op
	if _, ok := op.(protocol.Shutdown); ok {
		s.closed = true
		close(s.events)
	}
	return id, nil
}

// emit sends events as the session would; after Shutdown it does nothing.
func (s *fakeSession) emit(events ...protocol.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, e := range events {
		s.events <- s.stamp(e)
	}
}

// emitAsIs sends events without stamping them: what the session offers
// unasked carries no op id.
func (s *fakeSession) emitAsIs(events ...protocol.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range events {
		if !s.closed {
			s.events <- e
		}
	}
}

// stamp gives an event the test wrote without an op id the id of the op
// it answers, as a session would: a command's result that of the oldest
// unanswered command with its line (or, without one, its name), a turn's
// start that of the oldest unstarted turn with its text. The caller holds
// s.mu.
func (s *fakeSession) stamp(e protocol.Event) protocol.Event {
	take := func(match func(protocol.Op) bool) string {
		for i, o := range s.ids {
			if match(o.op) {
				s.ids = append(s.ids[:i:i], s.ids[i+1:]...)
				return o.id
			}
		}
		return ""
	}
	switch ev := e.(type) {
	case protocol.CommandResultEvent:
		if ev.Op == "" && ev.Line != "" {
			ev.Op = take(func(o protocol.Op) bool { c, ok := o.(protocol.Command); return ok && c.Line == ev.Line })
		} else if ev.Op == "" {
			ev.Op = take(func(o protocol.Op) bool {
				c, ok := o.(protocol.Command)
				name, _, _ := strings.Cut(strings.TrimPrefix(c.Line, "/"), " ")
				return ok && strings.EqualFold(name, ev.Command)
			})
		}
		return ev
	case protocol.TurnStartEvent:
		if ev.Op == "" {
			ev.Op = take(func(o protocol.Op) bool { u, ok := o.(protocol.UserTurn); return ok && u.Text == ev.Text })
		}
		return ev
	}
	return e
}

// submitted returns the ops so far.
func (s *fakeSession) submitted() []protocol.Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protocol.Op(nil), s.ops...)
}

// nextOp waits for the next op the UI submits.
func (s *fakeSession) nextOp(t *testing.T) protocol.Op {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	select {
	case op := <-s.opc:
		return op
	case <-deadline.C:
		t.Fatalf("timed out waiting for an op; submitted so far: %#v", s.submitted())
		return nil
	}
}

// testDescription is the scripted session's SessionEvent.
func testDescription() protocol.SessionEvent {
	return protocol.SessionEvent{SessionID: "s1", Cwd: "/work/project", Provider: "Test", Model: "test-model",
		Agent: "default", Thinking: "medium", Attended: true}
}

// testCommands is the scripted session's command list, in the shape the
// real one has.
func testCommands() []protocol.CommandInfo {
	return []protocol.CommandInfo{
		{Name: "agent", Args: "[name]", Summary: "switch agent: default, quick, deep, plan, review", Immediate: true},
		{Name: "think", Args: "[level]", Summary: "thinking level: off, low, medium, high, max", Immediate: true},
		{Name: "model", Args: "[id]", Summary: "switch model (no id: pick from the provider's list)", Immediate: true},
		{Name: "models", Summary: "list the provider's models to pick one", Immediate: true},
		{Name: "cost", Summary: "tokens, cache reads and writes, prompt memo, subagents", Immediate: true},
		{Name: "hooks", Args: "[review | approve NAME [DIGEST] | revoke NAME]", Summary: "external hooks and their approval state", Immediate: true},
		{Name: "bash", Args: "[list | stop ID | stop newest | stop all]", Summary: "background commands", Immediate: true},
		{Name: "init", Args: "[scaffold | no-scaffold]", Summary: "write AGENTS.md for this project"},
		{Name: "clear", Summary: "start over: clear the conversation"},
	}
}

// tap wraps a session: it records every op the UI submits and counts the
// events the session has sent, by type, so a test can wait for the session
// to have done something (not for text to appear).
type tap struct {
	inner  Session
	events chan protocol.Event

	mu      sync.Mutex
	ops     []protocol.Op
	counts  map[string]int
	changed chan struct{} // closed and replaced on every event
}

func newTap(s Session) *tap {
	tp := &tap{inner: s, events: make(chan protocol.Event), counts: map[string]int{}, changed: make(chan struct{})}
	go func() {
		defer close(tp.events)
		for e := range s.Events() {
			tp.mu.Lock()
			tp.counts[protocol.TypeOf(e)]++
			close(tp.changed)
			tp.changed = make(chan struct{})
			tp.mu.Unlock()
			tp.events <- e
		}
	}()
	return tp
}

func (tp *tap) Events() <-chan protocol.Event { return tp.events }

// Submit records op before the session sees it: what the op causes (an
// answered approval ends the turn, "done" is counted) must not be seen
// before the op itself, or a test that waits for the effect and then
// reads submitted() would miss the op.
func (tp *tap) Submit(op protocol.Op) (string, error) {
	tp.mu.Lock()
	tp.ops = append(tp.ops, op)
	close(tp.changed)
	tp.changed = make(chan struct{})
	tp.mu.Unlock()
	return tp.inner.Submit(op)
}

// waitOps waits until the ops submitted so far satisfy cond.
func (tp *tap) waitOps(t *testing.T, what string, cond func([]protocol.Op) bool) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		tp.mu.Lock()
		ops, changed := append([]protocol.Op(nil), tp.ops...), tp.changed
		tp.mu.Unlock()
		if cond(ops) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; ops: %#v", what, ops)
		}
	}
}

func (tp *tap) submitted() []protocol.Op {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]protocol.Op(nil), tp.ops...)
}

// waitSeen waits until the session has sent n events of type typ (as
// protocol.TypeOf names it).
func (tp *tap) waitSeen(t *testing.T, typ string, n int) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		tp.mu.Lock()
		got, changed := tp.counts[typ], tp.changed
		tp.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %d %q events (saw %d)", n, typ, got)
		}
	}
}
