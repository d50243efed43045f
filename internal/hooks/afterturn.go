package hooks

import (
	"context"
	"errors"

	"github.com/shiro-neko/shiro/internal/tool"
)

// AfterTurn runs every after_turn hook in name order with the turn
// summary on stdin; their output is ignored. Nothing is blocked, so a hook
// that is not approved, changed, invalid or failing is reported in the
// returned errors (one each, for the caller to show as notices) and the
// rest still run.
func (r *Runner) AfterTurn(ctx context.Context, summary tool.TurnSummary) []error {
	res := r.Fire(ctx, Event{Kind: KindAfterTurn, Cwd: summary.Cwd, Summary: summary})
	errs := make([]error, 0, len(res.Messages))
	for _, m := range res.Messages {
		errs = append(errs, errors.New(m))
	}
	return errs
}
