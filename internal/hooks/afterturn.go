package hooks

import (
	"context"
	"errors"
	"time"

	"github.com/shiro-neko/shiro/internal/tool"
)

// AfterTurn runs every after_turn hook in name order with the turn
// summary on stdin; their output is ignored. Nothing is blocked, so a hook
// that is not approved, changed, invalid or failing is reported in the
// returned errors (one each, for the caller to show as notices) and the
// rest still run.
func (r *Runner) AfterTurn(ctx context.Context, summary tool.TurnSummary) []error {
	stdin, err := afterTurnStdin(summary, r.opts.SessionID)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, e := range r.set.entries {
		covered, trustErr := r.considered(e, KindAfterTurn, "")
		if !covered {
			continue
		}
		if ctx.Err() != nil {
			return append(errs, errors.New("after_turn hooks were stopped: "+ctx.Err().Error()))
		}
		started := time.Now()
		report := func(outcome Outcome, reason, digest string) {
			r.observe(Run{Hook: e.hook.Name, Kind: KindAfterTurn, Digest: digest,
				Duration: time.Since(started), Outcome: outcome, Reason: reason})
			if reason != "" {
				errs = append(errs, errors.New(reason))
			}
		}
		if trustErr != nil {
			report(OutcomeBlocked, msgNoTrust(e.hook.Name, trustErr), "")
			continue
		}
		v, msg := r.verify(e)
		if msg != "" {
			report(OutcomeBlocked, msg, "")
			continue
		}
		if !manifestCovers(v.record.Manifest, KindAfterTurn, "") {
			continue
		}
		out, timeout := r.execute(ctx, v, KindAfterTurn, summary.Cwd, stdin)
		if msg := failure(v.hook.Name, out, timeout); msg != "" {
			report(OutcomeFailed, msg, v.record.Digest)
			continue
		}
		report(OutcomeFinished, "", v.record.Digest)
	}
	return errs
}
