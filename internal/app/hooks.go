package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/claudecode"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/tool"
)

// openHooks loads the hook folders, the hooks of Claude Code's settings
// files and their approvals. Settings whose hooks cannot be read stop
// shiro, as their permission rules do: skipping them would drop a guard.
func (a *App) openHooks(opts Options, sessionID string, resumed bool) error {
	set, problems := hooks.Load(filepath.Join(config.ProjectDir(a.Env.Root), "hooks"), opts.Paths.Hooks())
	a.startup = append(a.startup, problems...)
	files, err := claudecode.Load(opts.Paths.Home, a.Env.Root)
	if err != nil {
		return err
	}
	list, notes, err := claudecode.Hooks(files)
	if err != nil {
		return fmt.Errorf("the hooks of Claude Code's settings: %w", err)
	}
	a.startup = append(a.startup, notes...)
	a.startup = append(a.startup, set.AddClaude(list, a.Env.Root)...)
	trust, err := hooks.OpenTrust(opts.Paths.HookTrust())
	if err != nil {
		a.startup = append(a.startup, Problem{Kind: "hook", Where: opts.Paths.HookTrust(), Err: err.Error() + " (every hook blocks until this is fixed)"})
	} else if names, err := trust.MigrateOriginal(set); err != nil {
		a.startup = append(a.startup, Problem{Kind: "hook", Where: opts.Paths.HookTrust(), Err: err.Error()})
	} else if len(names) > 0 {
		// Not a failure, but trust that changed hands: said once, where
		// start-up problems are said.
		a.startup = append(a.startup, Problem{Kind: "hook", Where: opts.Paths.HookTrust() + ".original",
			Err: fmt.Sprintf("the TypeScript original's approval carried over to %s (review with shiro hooks list)", strings.Join(names, ", "))})
	}
	a.Hooks = hooks.NewRunner(set, trust, hooks.Options{
		DefaultTimeout: opts.Settings.HookTimeout, CacheDir: opts.Paths.HookCache(),
		SessionID: sessionID, ProjectDir: a.Env.Root, Validate: a.checkRewrite,
		Launcher: a.Env.Launcher, Passthrough: opts.Settings.EnvPassthrough,
	})
	a.edgeHooks = &edgeHooks{runner: a.Hooks, cwd: a.Env.Root, source: "startup"}
	if resumed {
		a.edgeHooks.source = "resume"
	}
	return nil
}

// announcePendingHooks tells a run nobody attends which hooks wait for
// approval, and how to give it: until then they block what they guard.
func (a *App) announcePendingHooks() {
	var names []string
	for _, s := range a.Hooks.Status() {
		if s.State == hooks.StatePending || s.State == hooks.StateChanged {
			names = append(names, s.Name)
		}
	}
	if len(names) > 0 {
		a.notice(fmt.Sprintf("%d hook(s) wait for your approval and block what they guard until then: %s. Review them with `shiro hooks list`, then run `shiro hooks approve NAME`.", len(names), strings.Join(names, ", ")))
	}
}

// checkRewrite checks a hook's rewritten input the way the model's input is
// checked: the tool decodes it strictly against its own schema.
func (a *App) checkRewrite(name string, input json.RawMessage) error {
	t, ok := a.currentTools().Get(name)
	if !ok {
		return fmt.Errorf("unknown tool %q", name)
	}
	_, err := t.Prepare(input)
	return err
}

// hookGate adapts the hooks runner to the gate: pre_tool hooks judge a
// call, post_tool hooks speak after it, notification hooks hear that an
// approval waits. What hooks say for the person becomes a notice.
type hookGate struct {
	runner *hooks.Runner
	cwd    string
	notify func(string)
}

func (h hookGate) PreTool(ctx context.Context, name, callID string, input json.RawMessage) tool.HookVerdict {
	r := h.runner.PreTool(ctx, name, callID, h.cwd, input)
	h.say(r.Messages)
	return r.HookVerdict
}

func (h hookGate) PostTool(ctx context.Context, tool, callID string, input json.RawMessage, output string) string {
	r := h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindPostTool, Cwd: h.cwd, Tool: tool, CallID: callID, Input: input, Output: output})
	h.say(r.Messages)
	if r.Stop {
		h.say([]string{r.StopReason})
	}
	return hookContext(r.Context)
}

func (h hookGate) Waiting(ctx context.Context, message string) {
	h.say(h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindNotification, Cwd: h.cwd, Message: message}).Messages)
}

func (h hookGate) PreCompact(ctx context.Context, trigger string) {
	h.say(h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindPreCompact, Cwd: h.cwd, Trigger: trigger}).Messages)
}

func (h hookGate) say(messages []string) {
	if h.notify == nil {
		return
	}
	for _, m := range messages {
		h.notify(m)
	}
}

// hookContext is how what hooks add reaches the model: set apart from
// the text around it, and named as the hooks' so the model does not take
// it for the person's words or the tool's output.
func hookContext(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return "<hook-context>\n" + strings.Join(parts, "\n") + "\n</hook-context>"
}

// hookObserver runs after_turn hooks; each failure becomes a notice.
type hookObserver struct {
	agent.NoHooks
	runner *hooks.Runner
}

func (h hookObserver) Ended(ctx context.Context, t agent.TurnEnd) agent.Ending {
	var notices []string
	for _, err := range h.runner.AfterTurn(ctx, t.TurnSummary) {
		notices = append(notices, "after_turn hook: "+err.Error())
	}
	return agent.Ending{Notices: notices}
}

// edgeHooks runs the hooks of the person's input: session_start before
// the first prompt, then user_prompt. It comes first among the turn
// hooks, so the hooks see what the person typed and a refusal stops the
// turn before anything is attached.
type edgeHooks struct {
	agent.NoHooks
	runner *hooks.Runner
	cwd    string
	// source is session_start's: "startup", or "resume" for a session
	// that already has a conversation.
	source  string
	started atomic.Bool
}

// Expand implements agent.TurnHooks: what the hooks add reaches the model
// with the prompt; a block refuses the turn.
func (h *edgeHooks) Expand(ctx context.Context, in agent.TurnInput) agent.TurnInput {
	var added []string
	if h.started.CompareAndSwap(false, true) {
		r := h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindSessionStart, Cwd: h.cwd, Source: h.source})
		added, in.Notices = r.Context, append(in.Notices, r.Messages...)
	}
	r := h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindUserPrompt, Cwd: h.cwd, Prompt: in.Text})
	in.Notices = append(in.Notices, r.Messages...)
	switch {
	case r.Blocked:
		in.Refusal = "the prompt was refused: " + r.Reason
	case r.Stop:
		in.Refusal = r.StopReason
	default:
		if add := hookContext(append(added, r.Context...)); add != "" {
			in.Text += "\n\n" + add
		}
	}
	return in
}

// closeSession runs the session_end hooks as shiro exits, when the
// session started: `shiro hooks list` opens no session its hooks end.
func (h *edgeHooks) closeSession(ctx context.Context, reason string) {
	if !h.started.Load() {
		return
	}
	h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindSessionEnd, Cwd: h.cwd, Reason: reason})
}

// stopHooks runs the stop hooks (subagent_stop ones in a subagent's
// turns) when the model ends its turn: a block sends it back to work with
// the hook's reason. Then, in an attended main session, the notification
// hooks hear that shiro waits for the person.
type stopHooks struct {
	agent.NoHooks
	runner   *hooks.Runner
	cwd      string
	kind     hooks.Kind
	attended bool
}

// Ended implements agent.TurnHooks.
func (h stopHooks) Ended(ctx context.Context, e agent.TurnEnd) agent.Ending {
	var end agent.Ending
	if e.MayContinue {
		r := h.runner.Fire(ctx, hooks.Event{Kind: h.kind, Cwd: h.cwd, StopActive: e.Continued > 0})
		end.Notices = r.Messages
		switch {
		case r.Stop:
			end.Notices = append(end.Notices, r.StopReason)
		case r.Blocked:
			end.Continue = r.Reason
			return end
		}
	}
	if h.attended && h.kind == hooks.KindStop {
		r := h.runner.Fire(ctx, hooks.Event{Kind: hooks.KindNotification, Cwd: h.cwd, Message: "shiro is waiting for your input"})
		end.Notices = append(end.Notices, r.Messages...)
	}
	return end
}

// stopHooks are the stop hooks of kind for the session's turns.
func (a *App) stopHooks(kind hooks.Kind) agent.TurnHooks {
	return stopHooks{runner: a.Hooks, cwd: a.Env.Root, kind: kind, attended: a.opts.Attended}
}

// subagentHooks take part in the subagents' turns: their subagent_stop
// hooks; nil when hooks are off.
func (a *App) subagentHooks() agent.TurnHooks {
	if a.Hooks == nil {
		return nil
	}
	return a.stopHooks(hooks.KindSubagentStop)
}
