// Package headless runs shiro without a terminal UI: prompts come from
// flags or stdin, events go to stdout as text or JSON lines, and every call
// that would need a person is denied unless --yolo.
package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
)

// Approver answers approvals without a person: deny, unless Yolo. A repeated
// identical call (the model looping) is denied even under --yolo, since no
// one is there to judge it.
type Approver struct{ Yolo bool }

// Approve implements agent.Approver.
func (a Approver) Approve(_ context.Context, r agent.ApprovalRequest) (agent.Answer, string, string) {
	name := r.Tool.Spec().Name
	if r.Repeated {
		return agent.AnswerDeny, "repeat", fmt.Sprintf("Denied: this is the third identical %s call this turn and headless mode has no one to ask. Try a different approach.", name)
	}
	if a.Yolo {
		return agent.AnswerOnce, "", ""
	}
	return agent.AnswerDeny, "headless", fmt.Sprintf("Denied: %s needs approval and headless mode has no one to ask (the user can rerun with --yolo).", name)
}

// Warning is printed on stderr when a headless run cannot approve anything.
const Warning = "shiro: headless mode denies every call that needs approval (writes, edits, bash, web) unless --yolo is passed"

// Sender runs one turn; *agent.Session implements it.
type Sender interface {
	Send(ctx context.Context, prompt string) iter.Seq[agent.Event]
}

// Options configures a run.
type Options struct {
	JSON bool
	Out  io.Writer // events (stdout)
	Err  io.Writer // progress lines in text mode (stderr)
	// Results also prints the first lines of each tool result in text
	// mode (the demo uses it; scripts rarely want it).
	Results bool
}

// Run sends each prompt as the next turn of the same session and prints the
// events. It returns the exit code: 0 when every turn completed, 1 when any
// error event occurred.
func Run(ctx context.Context, s Sender, prompts iter.Seq2[string, error], opts Options) int {
	p := newPrinter(opts)
	code := 0
	for prompt, err := range prompts {
		if err != nil {
			p.fail(err.Error())
			return 1
		}
		for e := range s.Send(ctx, prompt) {
			if _, isErr := e.(agent.ErrorEvent); isErr {
				code = 1
			}
			p.print(e)
		}
		if ctx.Err() != nil {
			return 1
		}
	}
	return code
}

// Single yields one prompt.
func Single(prompt string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) { yield(prompt, nil) }
}

// StreamJSON reads one `{"type":"user","text":"…"}` object per line and
// yields each text as the next turn. Blank lines are skipped; anything else
// is an error naming the line.
func StreamJSON(r io.Reader) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 8*1024*1024)
		n := 0
		for sc.Scan() {
			n++
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			text, err := parseInputLine(line)
			if err != nil {
				yield("", fmt.Errorf("stdin line %d: %w", n, err))
				return
			}
			if !yield(text, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield("", fmt.Errorf("reading stdin: %w", err))
		}
	}
}

func parseInputLine(line string) (string, error) {
	var msg struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		return "", fmt.Errorf(`want {"type":"user","text":"…"}: %w`, err)
	}
	if dec.More() {
		return "", fmt.Errorf("want one JSON object per line")
	}
	if msg.Type != "user" {
		return "", fmt.Errorf(`"type" must be "user", got %q`, msg.Type)
	}
	if strings.TrimSpace(msg.Text) == "" {
		return "", fmt.Errorf(`"text" is empty`)
	}
	return msg.Text, nil
}
