package app

import (
	"context"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/learn"
	"github.com/shiro-neko/shiro/internal/llm"
)

// openLearner makes the background learner (internal/learn), or nil when
// config turned it off. A provider handed in through Options is a script
// (the demo, the inspections) with no answer for a learning call, so it
// gets none. The learner reaches the session only once it runs, after a
// turn, by which time a.owner is set.
func (a *App) openLearner(ctx context.Context, opts Options, resumed int) *learn.Learner {
	s := opts.Settings
	if !s.AutoLearn || opts.Provider != nil {
		return nil
	}
	cfg := learn.Config{
		Complete: func(ctx context.Context, system, prompt string) (string, error) {
			// subagentModel, on the session's provider and key; "" is the
			// session's own model.
			return a.owner.CompleteOn(ctx, s.SubagentModel, system, prompt)
		},
		History:      func() []llm.Message { return a.owner.History() },
		Memory:       a.Memory,
		CeilingShare: func() float64 { return ceilingShare(a.owner.Spending(), s.MaxSpendUSD, s.MaxSpendPerTurn) },
		Redact:       a.redactForLearning,
		Notify:       a.notice,
		Inline:       !opts.Attended,
		Resumed:      resumed,
	}
	if !opts.NoSkills {
		cfg.SkillsDir = opts.Paths.Skills()
	}
	return learn.New(ctx, cfg)
}

// ceilingShare is the larger share of the two spend ceilings spent, zero
// when neither is set.
func ceilingShare(sp agent.Spending, session, turn float64) float64 {
	share := 0.0
	if session > 0 {
		share = sp.Session / session
	}
	if turn > 0 {
		share = max(share, sp.Turn/turn)
	}
	return share
}

// redactForLearning withholds the workspace's secret values and the API
// key from text: the learning call and what it keeps must carry no more
// than the conversation already showed, and memories none of it.
func (a *App) redactForLearning(ctx context.Context, text string) (string, error) {
	red, err := a.Env.SecretRedactor(ctx)
	if err != nil {
		return "", err
	}
	text = red.Redact(text)
	if key := a.Loaded.Settings.APIKey; len(key) >= 8 {
		text = strings.ReplaceAll(text, key, "[secret withheld: API key]")
	}
	return text, nil
}
