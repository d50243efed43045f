// Package headless runs shiro without a terminal UI. It is a client of the
// session protocol like any other front end: prompts come from flags or
// stdin, events go to stdout as text or JSON lines. With
// --input-format stream-json, stdin carries ops (turns, and the answers to
// approval requests and questions) while events stream out; otherwise
// nobody attends the session and every call that needs approval is denied
// unless --yolo.
package headless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// ExitSpendLimit is the exit code of a run a spend ceiling (maxSpendUsd,
// maxSpendPerTurn) stopped.
const ExitSpendLimit = 3

// ExitStepLimit is the exit code of a run whose turn the step cap
// (--max-steps, config maxSteps) ended before the model was done: the work
// is unfinished, which a script must not mistake for success.
const ExitStepLimit = 4

// Warning is printed on stderr when a headless run cannot approve anything.
const Warning = "shiro: headless mode denies every call that needs approval (writes, edits, bash, web) unless --yolo is passed"

// Session is the protocol as headless mode uses it; the agent's session
// implements it.
type Session interface {
	// Submit returns the op's id, which the events it causes carry.
	Submit(op protocol.Op) (string, error)
	Events() <-chan protocol.Event
}

// Input feeds a session: it submits ops until it has nothing more, then
// returns. It runs on its own goroutine while events are printed; an error
// stops the run with exit code 1.
type Input func(ctx context.Context, submit func(protocol.Op) error) error

// Options configures a run.
type Options struct {
	JSON bool
	Out  io.Writer // events (stdout)
	Err  io.Writer // progress lines in text mode (stderr)
	// Results also prints the first lines of each tool result in text
	// mode (the demo uses it; scripts rarely want it).
	Results bool
}

// Run feeds the session from in and prints its events until the stream
// closes. It returns the exit code: 0 when every turn completed, 1 when an
// error event occurred, the input failed, or ctx was cancelled, and
// ExitSpendLimit when a spend ceiling stopped a turn (its notice, one
// line, names the ceiling and how to raise it), and ExitStepLimit when the
// step cap ended one. A limit wins over 1, and spend over steps.
func Run(ctx context.Context, s Session, in Input, opts Options) int {
	p := newPrinter(opts)
	inputErr := make(chan error, 1)
	// An answer that arrives after its request was withdrawn (the turn was
	// interrupted meanwhile) is a race, not a broken client: say so and
	// go on.
	submit := func(op protocol.Op) error {
		_, err := s.Submit(op)
		if errors.Is(err, protocol.ErrUnknownRequest) {
			p.print(protocol.NoticeEvent{Text: "ignored an answer: " + err.Error()})
			return nil
		}
		return err
	}
	go func() {
		err := in(ctx, submit)
		if err != nil {
			p.fail(err.Error())
		}
		inputErr <- err
		// No more input: queued turns finish, then the stream closes.
		_, _ = s.Submit(protocol.Shutdown{})
	}()
	stop := context.AfterFunc(ctx, func() {
		_, _ = s.Submit(protocol.Interrupt{})
		_, _ = s.Submit(protocol.Shutdown{})
	})
	defer stop()
	code, ceiling, steps := 0, false, false
	var total *protocol.UsageEvent
	for e := range s.Events() {
		if u, ok := e.(protocol.UsageEvent); ok {
			total = &u
		}
		if d, ok := e.(protocol.DoneEvent); ok {
			ceiling = ceiling || d.Reason == protocol.StopSpendLimit
			// A turn the repeat guard stopped, after the same refused
			// call a third time, is as unfinished as one the step cap
			// stopped.
			steps = steps || d.Reason == protocol.StopStepLimit || d.Reason == protocol.StopRefused
		}
		if _, isErr := e.(protocol.ErrorEvent); isErr {
			code = 1
		}
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Error != "" {
			code = 1
		}
		p.print(e)
	}
	if err := <-inputErr; err != nil || ctx.Err() != nil {
		code = 1
	}
	if total != nil && !opts.JSON {
		// The JSON stream carried every usage event; text gets the total.
		p.summary(*total)
	}
	if ceiling {
		// A script must tell "spent what it was allowed" from a failure.
		return ExitSpendLimit
	}
	if steps {
		return ExitStepLimit
	}
	return code
}

// Prompt is the input of `-p "…"`: one turn, or, when the text is a
// slash command line (`-p /cost`), that command, whose output is printed
// like any other event.
//
// images (-i FILE, loaded with LoadImage) go with the turn.
func Prompt(text string, images ...protocol.Image) Input {
	return func(_ context.Context, submit func(protocol.Op) error) error {
		if IsCommandLine(text) {
			if len(images) > 0 {
				return fmt.Errorf("-i/--image goes with a prompt, not with the command %s", strings.Fields(text)[0])
			}
			return submit(protocol.Command{Line: strings.TrimSpace(text)})
		}
		return submit(protocol.UserTurn{Text: text}.WithImages(images))
	}
}

// IsCommandLine reports whether a prompt is a slash command line
// (protocol.CommandName).
func IsCommandLine(text string) bool {
	_, ok := protocol.CommandName(text)
	return ok
}

// StreamJSON reads one op per line of r: `{"type":"user","text":"…"}` for
// a turn, `{"type":"approval","id":…,"answer":"yes|always|no"}` for an
// approval request, and the other ops of the protocol. Blank lines are
// skipped; a line that is not a valid op stops the input with an error
// naming the line (turns already queued still run). A turn's "images"
// give each picture as {"path": FILE} (read from the working directory)
// or {"mediaType": "image/png", "data": BASE64}.
func StreamJSON(r io.Reader) Input {
	return func(ctx context.Context, submit func(protocol.Op) error) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 8*1024*1024)
		n := 0
		for sc.Scan() {
			n++
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			op, err := protocol.DecodeOp([]byte(line))
			if err != nil {
				return fmt.Errorf("stdin line %d: %w", n, err)
			}
			if _, ok := op.(protocol.Shutdown); ok {
				return nil
			}
			if turn, ok := op.(protocol.UserTurn); ok {
				if op, err = loadTurnImages(".", turn); err != nil {
					return fmt.Errorf("stdin line %d: %w", n, err)
				}
			}
			if err := submit(op); err != nil {
				return fmt.Errorf("stdin line %d: %w", n, err)
			}
			if ctx.Err() != nil {
				return nil
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		return nil
	}
}
