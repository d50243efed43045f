// Package headless runs shiro without a terminal UI. It is a client of the
// session protocol like any other front end: prompts come from flags or
// stdin, events go to stdout as text or JSON lines, or the run ends with
// one result object (--output-format json); the final answer may be held
// to a JSON Schema (--output-schema) and written to a file (-o). With
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
	// Format is what stdout gets; the zero value is FormatText.
	Format Format
	Out    io.Writer // the answer, the events or the result (stdout)
	Err    io.Writer // progress lines in the text and json formats (stderr)
	// Schema, when set, is what the final answer must validate against
	// (--output-schema): an answer that does not is sent back to the
	// model once with what failed, then the run fails. It goes with an
	// input of one turn (Prompt); the session must send it to the model
	// (app.Options.OutputSchema).
	Schema *Schema
	// LastMessage is a file the final answer is written to when the run
	// ends (-o), replacing it whole; "" writes none.
	LastMessage string
	// Results also prints the first lines of each tool result in text
	// mode (the demo uses it; scripts rarely want it).
	Results bool
}

// Run feeds the session from in and prints its events until the stream
// closes. It returns the exit code: 0 when every turn completed, 1 when an
// error event occurred, the input failed, ctx was cancelled, the answer
// failed opts.Schema or -o could not be written, and ExitSpendLimit when a
// spend ceiling stopped a turn (its notice, one line, names the ceiling
// and how to raise it), and ExitStepLimit when the step cap ended one. A
// limit wins over 1, and spend over steps.
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
	// ends carries each turn's end to the schema check, which may send
	// the model back once; it is closed when the stream is.
	ends := make(chan turnEnd, 4)
	var check verdict
	go func() {
		err := in(ctx, submit)
		if err != nil {
			p.fail(err.Error())
		} else if opts.Schema != nil {
			check = enforce(ctx, opts.Schema, ends, submit, p)
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
		if _, isErr := e.(protocol.ErrorEvent); isErr {
			code = 1
		}
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Error != "" {
			code = 1
		}
		p.print(e)
		if d, ok := e.(protocol.DoneEvent); ok {
			ceiling = ceiling || d.Reason == protocol.StopSpendLimit
			// A turn the repeat guard stopped, after the same refused
			// call a third time, is as unfinished as one the step cap
			// stopped.
			steps = steps || d.Reason == protocol.StopStepLimit || d.Reason == protocol.StopRefused
			if opts.Schema != nil {
				select {
				case ends <- turnEnd{reason: d.Reason, answer: p.answer()}:
				default: // more turns than one input sends: none is checked
				}
			}
		}
	}
	close(ends)
	if err := <-inputErr; err != nil || ctx.Err() != nil {
		code = 1
	}
	// The answer as the model gave it, unless it validated: then its
	// compact JSON.
	answer := p.answer()
	if check.answer != nil {
		answer = string(check.answer)
	}
	if check.err != nil {
		p.fail(check.err.Error())
		code = 1
	}
	switch {
	case ceiling:
		// A script must tell "spent what it was allowed" from a failure.
		code = ExitSpendLimit
	case steps:
		code = ExitStepLimit
	}
	// Only a finished run's answer is written: a script that reads the
	// file without looking at the exit code must not take half an answer,
	// or one that failed its schema, for the result.
	if opts.LastMessage != "" && code == 0 {
		file := answer
		if opts.Schema != nil {
			// The answer is shiro's compact form of the JSON, not the
			// model's bytes: it is written as a JSON file is, with a
			// newline at the end.
			file += "\n"
		}
		if err := writeLastMessage(opts.LastMessage, file); err != nil {
			p.fail(err.Error())
			code = 1
		}
	}
	switch opts.Format {
	case FormatJSON:
		p.printResult(p.result(code, answer, check.answer, check.err != nil))
	case FormatStreamJSON:
		// The stream carried every usage event.
	default:
		if opts.Schema != nil && check.err == nil && len(check.answer) > 0 {
			p.printAnswer(answer)
		}
		if total != nil {
			p.summary(*total)
		}
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
