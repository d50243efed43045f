package bash

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// What a command prints reaches the model without the values of the
// workspace's secret files: bash, background commands and run_checks pass
// every chunk through a redaction before it is kept, relayed live or put
// in a result. It is the one place where a command's output is seen,
// whatever printed a secret (`cat .env`, `git log -p --all`, `git cat-file
// -p <blob>`), so nothing has to guess which commands can.
//
// The live events shown to the person are redacted too: they are the same
// chunks, and the transcript and the --json stream are read by more than
// the person.

// redaction redacts one command's two streams and passes what it
// releases to deliver, in order, one call at a time. Output held back
// while the secrets are being worked out again (after the command
// committed or fetched) is released by a goroutine as soon as they are
// known, so a server's last line still reaches bash_status without more
// output behind it.
type redaction struct {
	mu      sync.Mutex
	deliver func(streamKind, []byte)
	streams [2]*secrets.Stream
	waking  [2]bool
	// notice is what the last Redactor said it may miss; atomic, so that
	// bash_status can read it while a chunk is being redacted.
	notice atomic.Pointer[string]
}

// newRedaction redacts with the workspace's secret values, looked up
// again at every chunk so that a secret the command itself fetches or
// commits before printing it is known by then. It first waits (up to ctx)
// for them to be known, before the command starts: the first command of
// a session waits for the scan of the workspace and its git history, and
// the output reader seldom has to hold anything back.
func newRedaction(ctx context.Context, env *workspace.Env, deliver func(streamKind, []byte)) *redaction {
	// An error here is the stream's to report, in place of the output.
	_, _ = env.SecretRedactor(ctx)
	r := &redaction{deliver: deliver}
	src := noticing{Source: env.SecretSource(ctx), notice: &r.notice}
	r.streams = [2]*secrets.Stream{secrets.NewStream(src), secrets.NewStream(src)}
	return r
}

// write redacts a chunk of one stream and delivers what can be released.
func (r *redaction) write(kind streamKind, p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pass(kind, r.streams[kind].Write(p))
}

// flush delivers what a stream held back, at its end.
func (r *redaction) flush(kind streamKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rest := r.streams[kind].Flush(); len(rest) > 0 {
		r.deliver(kind, rest)
	}
}

// pass delivers out and, when the stream holds output until the secrets
// are known, arranges for it to be released then. Called under r.mu.
func (r *redaction) pass(kind streamKind, out []byte) {
	if len(out) > 0 {
		r.deliver(kind, out)
	}
	if held := r.streams[kind].Held(); held != nil && !r.waking[kind] {
		r.waking[kind] = true
		go func() {
			<-held // the scan's end: bounded by its own timeouts
			r.mu.Lock()
			defer r.mu.Unlock()
			r.waking[kind] = false
			r.pass(kind, r.streams[kind].Write(nil))
		}()
	}
}

// noticing keeps the notice of the Redactor a Source gives.
type noticing struct {
	secrets.Source
	notice *atomic.Pointer[string]
}

func (n noticing) Current() (*secrets.Redactor, <-chan struct{}) {
	red, busy := n.Source.Current()
	if busy == nil {
		n.keep(red)
	}
	return red, busy
}

func (n noticing) Wait() (*secrets.Redactor, error) {
	red, err := n.Source.Wait()
	if err == nil {
		n.keep(red)
	}
	return red, err
}

func (n noticing) keep(red *secrets.Redactor) {
	if note := red.Notice(); note != "" {
		n.notice.Store(&note)
	}
}

// noticeNote words the notice for a result, or "".
func (r *redaction) noticeNote() string {
	if r == nil {
		return "" // a job that never ran (tests build them by hand)
	}
	n := r.notice.Load()
	if n == nil || *n == "" {
		return ""
	}
	return "note: secret values may show unredacted: " + *n
}
