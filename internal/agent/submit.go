package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Submit hands the session one op and returns its id, which the events
// the op causes carry (protocol.Op). It never blocks on the turn: a user
// turn is queued, an answer is delivered to the waiting call, an interrupt
// cancels. The error says why an op was refused (a closed session, an
// answer to a request that is not open, an unknown agent); a refused op
// changes nothing.
func (s *session) Submit(op protocol.Op) (string, error) {
	id := "op" + strconv.FormatInt(s.ops.Add(1), 10)
	return id, s.submit(id, op)
}

func (s *session) submit(id string, op protocol.Op) error {
	switch o := op.(type) {
	case protocol.UserTurn:
		return s.enqueue(id, o)
	case protocol.Approval:
		return s.broker.answerApproval(o)
	case protocol.Answer:
		return s.broker.answerQuestion(o)
	case protocol.Interrupt:
		if o.CallID != "" {
			if !s.interruptTool(o.CallID) {
				return fmt.Errorf("interrupt: %q is not the running tool call", o.CallID)
			}
			return nil
		}
		s.interrupt()
		return nil
	case protocol.Configure:
		return s.configure(id, o)
	case protocol.Command:
		return s.command(id, o)
	case protocol.Shutdown:
		s.shutdown()
		return nil
	}
	return fmt.Errorf("agent: unknown op %T", op)
}

// queued is a turn, or a command that waits for the turn before it. A
// turn a command queued may name its own model.
type queued struct {
	op      string // the id of the op that queued it
	text    string
	command bool
	model   string
	images  []llm.Image
}

func (s *session) enqueue(op string, o protocol.UserTurn) error {
	pictures := o.Pictures()
	if strings.TrimSpace(o.Text) == "" && len(pictures) == 0 {
		return fmt.Errorf("user turn: the text is empty")
	}
	images := make([]llm.Image, 0, len(pictures))
	for i, img := range pictures {
		part, err := llm.NewImage(img.MediaType, img.Data)
		if err != nil {
			return fmt.Errorf("user turn: image %d%s: %w", i+1, named(img.Name), err)
		}
		images = append(images, part)
	}
	return s.push(queued{op: op, text: o.Text, images: images})
}

// named is " (name)" for an image that has one.
func named(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

func (s *session) push(q queued) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ErrClosed
	}
	s.queue = append(s.queue, q)
	if !s.running {
		s.running = true
		s.runner.Add(1)
		go s.runTurns()
	}
	return nil
}

// runTurns runs queued turns and commands one after another until the
// queue is empty. Settings changes that waited for a turn apply between
// items.
func (s *session) runTurns() {
	defer s.runner.Done()
	for {
		s.mu.Lock()
		s.applyPendingLocked()
		if len(s.queue) == 0 || s.ctx.Err() != nil {
			s.queue = nil
			s.running = false
			closing := s.closing && s.showing == 0
			s.mu.Unlock()
			if closing {
				s.finishClose()
			}
			return
		}
		next := s.queue[0]
		s.queue = s.queue[1:]
		ctx, stop := context.WithCancel(s.ctx)
		s.turnStop = stop
		seq := 0
		if !next.command {
			s.turnSeq++
			seq = s.turnSeq
			s.inTurn = true
		}
		s.mu.Unlock()

		if next.command {
			s.runCommand(ctx, next.op, next.text)
		} else {
			s.runTurn(ctx, seq, next)
		}
		stop()
		s.mu.Lock()
		s.turnStop, s.inTurn = nil, false
		s.mu.Unlock()
	}
}

// applyPendingLocked applies a settings change that arrived during a turn
// and announces the new settings; the caller holds s.mu.
func (s *session) applyPendingLocked() {
	if s.pending == nil {
		return
	}
	c, op := *s.pending, s.pendingOp
	s.pending, s.pendingOp = nil, ""
	if err := s.applyConfigure(c); err != nil {
		s.out.emit(protocol.ErrorEvent{Op: op, Error: err.Error()})
		return
	}
	s.out.emit(s.describeLocked())
}

func (s *session) configure(op string, c protocol.Configure) error {
	if err := checkConfigure(c); err != nil {
		return err
	}
	if c.Mode != "" {
		// The mode applies at once, even during a turn: it decides the
		// calls still to come, not how the turn was set up.
		m, _ := permission.ParseMode(c.Mode)
		if s.isClosing() {
			return ErrClosed
		}
		s.setMode(m)
		if c.Mode = ""; c == (protocol.Configure{}) {
			return nil
		}
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.running {
		// Apply it when the turn ends, so a turn never changes model
		// halfway; it was checked above, so the client heard of a
		// mistake at once.
		merged := c
		if s.pending != nil {
			merged = mergeConfigure(*s.pending, c)
		}
		s.pending, s.pendingOp = &merged, op
		s.mu.Unlock()
		return nil
	}
	err := s.applyConfigure(c)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.out.emit(s.describe())
	return nil
}

func (s *session) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// mergeConfigure lays a later change over an earlier one.
func mergeConfigure(a, b protocol.Configure) protocol.Configure {
	if b.Model != "" {
		a.Model = b.Model
	}
	if b.Agent != "" {
		a.Agent, a.Thinking = b.Agent, ""
	}
	if b.Thinking != "" {
		a.Thinking = b.Thinking
	}
	return a
}

// interrupt cancels the running turn and drops the queued ones.
func (s *session) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = nil
	if s.turnStop != nil {
		s.turnStop()
	}
}

// shutdown stops taking input: nobody is left to answer, queued turns
// still run, and the event stream closes when they have.
func (s *session) shutdown() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	busy := s.running || s.showing > 0
	s.mu.Unlock()
	if s.cfg.Broker == nil {
		s.broker.detach()
	}
	if !busy {
		s.finishClose()
	}
}

// finishClose closes the event stream once.
func (s *session) finishClose() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.out.close()
	s.cancel()
}

// Wait blocks until the running and queued turns have ended.
func (s *session) Wait() { s.runner.Wait() }

// command runs a slash command: at once on its own goroutine when it only
// shows something, else in its place in the turn queue.
func (s *session) command(op string, c protocol.Command) error {
	if s.cfg.Commands == nil {
		return fmt.Errorf("%s: this session runs no slash commands", strings.TrimSpace(c.Line))
	}
	if !s.cfg.Commands.Immediate(c.Line) {
		return s.push(queued{op: op, text: c.Line, command: true})
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrClosed
	}
	// The stream stays open until the command has answered, even if a
	// shutdown comes meanwhile.
	s.showing++
	s.mu.Unlock()
	go func() {
		s.runCommand(s.ctx, op, c.Line)
		s.mu.Lock()
		s.showing--
		last := s.closing && s.showing == 0 && !s.running
		s.mu.Unlock()
		if last {
			s.finishClose()
		}
	}()
	return nil
}

// runCommand runs one command line and reports its outcome. A command
// whose outcome is a prompt queues that prompt as the next turn.
func (s *session) runCommand(ctx context.Context, op, line string) {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	out, err := s.cfg.Commands.Run(ctx, line)
	if out.Change != nil {
		// Also after a failure: an /undo of two turns that undid one.
		err = errors.Join(err, s.change(ctx, op, out.Change))
	}
	ev := protocol.CommandResultEvent{Op: op, Command: name, Output: out.Output, Choices: out.Choices, Field: out.Field,
		Line: cmp.Or(out.Line, strings.TrimSpace(line))}
	follows := err == nil && strings.TrimSpace(out.Prompt) != ""
	if err != nil {
		ev.Error = err.Error()
	}
	ev.Turn = follows
	s.out.emit(ev)
	if follows {
		s.mu.Lock()
		// The prompt goes first in the queue: it is what the command meant
		// to happen next.
		s.queue = append([]queued{{op: op, text: out.Prompt, model: out.Model}}, s.queue...)
		if !s.running && !s.closing {
			s.running = true
			s.runner.Add(1)
			go s.runTurns()
		}
		s.mu.Unlock()
	}
}

// change makes a command's change to the conversation, as op. Only a
// command queued between turns may: one that runs beside a turn is refused.
func (s *session) change(ctx context.Context, op string, c Change) error {
	s.mu.Lock()
	busy := s.inTurn
	s.mu.Unlock()
	if busy {
		return errors.New("a turn is running; wait for it to end")
	}
	switch c := c.(type) {
	case Replace:
		s.replaceHistory(op, c.History)
		return nil
	case Compact:
		return s.compactNow(ctx, op, c.Focus)
	}
	return fmt.Errorf("agent: unknown change %T", c)
}
