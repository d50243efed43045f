// Package learn is auto-learning: after a turn, on a schedule, one side
// call to the model reads the recent conversation and proposes what is
// worth keeping beyond this session: at most one project memory entry and
// a few "universal" skills (procedures useful in any project), which are
// written to the person's skill folder as auto-<slug>.md. A correction from
// the person ("no, we use pnpm here") is the strongest signal: it makes the
// learner run at once, and the prompt tells the model to learn from it
// first.
//
// The learner never holds up the next turn: in an attended session it runs
// in the background, bounded, one run at a time, and is cancelled when the
// session closes. An unattended (headless) session has no next turn to
// hold up, so there it runs before the turn ends, bounded more tightly, so
// that its notice and its cost are in the run's output and its exit is
// delayed by at most that bound.
package learn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/memory"
)

// The schedule (the original's): a run needs MinHistory messages, and
// comes every EveryTurns turns or once NewMessages messages arrived since
// the last run, whichever is first. A correction runs it at once.
const (
	MinHistory  = 6
	EveryTurns  = 3
	NewMessages = 8
	// SpendShare is the share of a spend ceiling past which the learner
	// stays quiet: what is left belongs to the person's own turns.
	SpendShare = 0.8
	// BackgroundBound and InlineBound cap one run in an attended session
	// and in a headless one.
	BackgroundBound = 90 * time.Second
	InlineBound     = 20 * time.Second
)

// Completer sends one prompt, with no tools and no history, to the
// learning model and returns the answer. The session charges its usage.
type Completer func(ctx context.Context, system, prompt string) (string, error)

// Config is what the learner needs of the session around it.
type Config struct {
	// Complete makes the learning call.
	Complete Completer
	// History returns the stored conversation.
	History func() []llm.Message
	// Memory is the project memory; nil proposes no memories.
	Memory *memory.Store
	// SkillsDir is the person's skill folder; "" proposes no skills.
	SkillsDir string
	// CeilingShare returns the largest share of a spend ceiling already
	// spent (0 when there is none, or the model has no price).
	CeilingShare func() float64
	// Redact withholds the workspace's secret values and the API key from
	// text; an error (the secret scan failed) skips the run, since what
	// may not be sent is then unknown.
	Redact func(ctx context.Context, text string) (string, error)
	// Notify shows a notice after a background run; inline runs return
	// their notices from AfterTurn.
	Notify func(text string)
	// Inline runs the learner inside AfterTurn (headless sessions).
	Inline bool
	// Resumed is how many messages the session started with (a resumed
	// conversation, -c): they count as learned from already, so that each
	// short `-c -p` run does not send the same old turns again.
	Resumed int
	// Now is the clock for the skills' update dates; nil is time.Now.
	Now func() time.Time
}

// Learner decides after each turn whether to learn, and learns. It is an
// agent.TurnObserver.
type Learner struct {
	agent.NoHooks // it hears a turn end, and nothing else of it
	cfg           Config
	ctx           context.Context
	cancel        context.CancelFunc
	wg            sync.WaitGroup

	mu      sync.Mutex
	turns   int  // turns seen
	lastLen int  // history length at the last run
	running bool // a background run is in flight
	closed  bool // Close was called: no run starts
	failed  bool // a failure was announced already
}

// New makes a learner; Close stops it, and so does the end of ctx (a
// headless run's Ctrl-C, which must not wait out a learning call).
func New(ctx context.Context, cfg Config) *Learner {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	return &Learner{cfg: cfg, ctx: ctx, cancel: cancel, lastLen: cfg.Resumed}
}

// Close cancels a running background run and waits for it to return.
func (l *Learner) Close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	l.wg.Wait()
}

// Wait waits for a background run in flight, if any, to end.
func (l *Learner) Wait() { l.wg.Wait() }

// Ended implements agent.TurnHooks: when a run is due it starts one in
// the background (or, inline, runs it and returns its notices).
func (l *Learner) Ended(_ context.Context, t agent.TurnEnd) agent.Ending {
	return agent.Ending{Notices: l.afterTurn(t.TurnSummary)}
}

func (l *Learner) afterTurn(t agent.TurnSummary) []string {
	if t.Interrupted {
		// The person stopped the turn; what it said is half-done.
		return nil
	}
	history := l.cfg.History()
	l.mu.Lock()
	l.turns++
	if l.closed || l.running || !l.due(history) {
		l.mu.Unlock()
		return nil
	}
	if l.cfg.CeilingShare != nil && l.cfg.CeilingShare() >= SpendShare {
		l.mu.Unlock()
		return nil
	}
	l.lastLen = len(history)
	if l.cfg.Inline {
		l.mu.Unlock()
		// From the learner's context, not the turn's (which outlives an
		// interrupt so that observers run): closing stops it too.
		runCtx, cancel := context.WithTimeout(l.ctx, InlineBound)
		defer cancel()
		return l.learn(runCtx, history)
	}
	l.running = true
	l.wg.Add(1)
	l.mu.Unlock()
	go func() {
		defer l.wg.Done()
		runCtx, cancel := context.WithTimeout(l.ctx, BackgroundBound)
		notices := l.learn(runCtx, history)
		cancel()
		l.mu.Lock()
		l.running = false
		l.mu.Unlock()
		if l.cfg.Notify != nil && l.ctx.Err() == nil {
			for _, n := range notices {
				l.cfg.Notify(n)
			}
		}
	}()
	return nil
}

// due applies the schedule; the caller holds l.mu.
func (l *Learner) due(history []llm.Message) bool {
	if len(history) < l.lastLen {
		l.lastLen = 0 // the conversation was cleared, undone or compacted
	}
	if _, ok := lastCorrection(history); ok && len(history) > l.lastLen {
		return true
	}
	if len(history) < MinHistory {
		return false
	}
	return l.turns%EveryTurns == 0 || len(history)-l.lastLen >= NewMessages
}

// learn makes the learning call and keeps what it proposed; it returns
// the notices to show.
func (l *Learner) learn(ctx context.Context, history []llm.Message) []string {
	if l.cfg.Memory == nil && l.cfg.SkillsDir == "" {
		return nil
	}
	props, err := l.propose(ctx, history)
	if err != nil {
		if ctx.Err() != nil && l.ctx.Err() != nil {
			return nil // the session is closing
		}
		return l.failure(err)
	}
	var notices []string
	if n := l.keepMemory(ctx, props.Memories); n != "" {
		notices = append(notices, n)
	}
	notices = append(notices, l.keepSkills(ctx, props.Skills)...)
	return notices
}

// failure announces the first failure of a session; later ones would only
// repeat it after every few turns.
func (l *Learner) failure(err error) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed {
		return nil
	}
	l.failed = true
	return []string{fmt.Sprintf("auto-learning: %v (nothing learned; set \"autoLearn\": false in config.json to turn it off)", err)}
}

// propose builds the prompt, makes the call and reads the answer.
func (l *Learner) propose(ctx context.Context, history []llm.Message) (proposals, error) {
	text := transcript(history)
	if l.cfg.Redact != nil {
		var err error
		if text, err = l.cfg.Redact(ctx, text); err != nil {
			return proposals{}, fmt.Errorf("the workspace's secrets could not be checked: %w", err)
		}
	}
	var known []memory.Entry
	if l.cfg.Memory != nil {
		known = l.cfg.Memory.Entries()
	}
	answer, err := l.cfg.Complete(ctx, systemPrompt(l.cfg.Memory != nil, l.cfg.SkillsDir != ""), userPrompt(text, known))
	if err != nil {
		return proposals{}, fmt.Errorf("the learning call failed: %w", err)
	}
	return parseProposals(answer)
}

// keepMemory stores the first acceptable candidate: one per run, so that a
// chatty answer cannot flood the memory.
func (l *Learner) keepMemory(ctx context.Context, cands []candidate) string {
	if l.cfg.Memory == nil {
		return ""
	}
	for _, c := range cands {
		kind, err := memory.ParseKind(c.Kind)
		if err != nil || !l.clean(ctx, c.Text) {
			continue
		}
		res, err := l.cfg.Memory.Remember(kind, c.Text)
		if err != nil {
			return fmt.Sprintf("auto-memory: not saved: %v", err)
		}
		if res.Duplicate {
			continue
		}
		return fmt.Sprintf("auto-memory: remembered (%s) %s", kind, res.Entry.Text)
	}
	return ""
}

// clean reports whether text may be kept: it holds no secret the
// workspace knows of and nothing shaped like a key.
func (l *Learner) clean(ctx context.Context, text string) bool {
	if looksSecret(text) {
		return false
	}
	if l.cfg.Redact == nil {
		return true
	}
	red, err := l.cfg.Redact(ctx, text)
	return err == nil && red == text
}

// errNoJSON is the answer that held no proposals object.
var errNoJSON = errors.New("the model's answer held no JSON object of proposals")
