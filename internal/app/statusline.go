package app

import (
	"context"
	"fmt"
	"time"

	"github.com/shiro-neko/shiro/internal/claudecode"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/statusline"
	"github.com/shiro-neko/shiro/internal/trust"
	"github.com/shiro-neko/shiro/internal/version"
)

// A status line command can be set in shiro's config and in Claude Code's
// settings. The most specific setting wins: the project's before the
// person's, and within each shiro's file before Claude Code's. A
// project's command is in the repository, where anyone (the model
// included) can change it, so it runs only once the person has approved
// its exact text, and the person's own runs meanwhile.

// statusLineTrustName is the key a project's approved status line is kept
// under in the project config approvals.
const statusLineTrustName = "statusLine"

// statusSource is one statusLine setting and the file it is written in.
type statusSource struct {
	Name    string // the file, as messages show it
	Project bool
	Line    config.StatusLine
}

// digest is what approving a project's command pins: its text.
func (s statusSource) digest() string { return trust.Digest([]byte(s.Line.Command)) }

// statusSources lists the statusLine settings, the winner first. A
// setting of the wrong shape in Claude Code's files is a problem naming
// the file; the others still count.
func (l Loaded) statusSources() ([]statusSource, []Problem) {
	var project, user []statusSource
	var problems []Problem
	if p := l.Settings.ProjectStatusLine; p != nil {
		project = append(project, statusSource{Name: config.ProjectApprovalName, Project: true, Line: *p})
	}
	if u := l.Settings.StatusLine; u != nil {
		user = append(user, statusSource{Name: "~/.shiro-neko/config.json", Line: *u})
	}
	// Claude Code layers user, project, local: the later file wins.
	for i := len(l.claude) - 1; i >= 0; i-- {
		f := l.claude[i]
		line, err := config.ParseStatusLine(f.StatusLine)
		if err != nil {
			problems = append(problems, Problem{Kind: "statusLine", Where: f.Path, Err: fmt.Sprintf("field \"statusLine\": %v; the status line ignores this file", err)})
			continue
		}
		if line == nil {
			continue
		}
		s := statusSource{Name: f.Name, Project: f.Scope != claudecode.ScopeUser, Line: *line}
		if s.Project {
			project = append(project, s)
		} else {
			user = append(user, s)
		}
	}
	return append(project, user...), problems
}

// statusLineState is what runs now, and the project's command that waits
// for approval (nil when none does).
type statusLineState struct {
	active, pending *statusSource
	err             error // the approvals could not be read
}

// statusLineState decides between the sources: the winner when it is the
// person's or approved; otherwise the person's own while the project's
// waits.
func (a *App) statusLineState() statusLineState {
	var st statusLineState
	for _, s := range a.statusLines {
		if !s.Project {
			st.active = &s
			return st
		}
		if st.pending != nil {
			continue // one project command is approved at a time: the winner
		}
		ok, err := a.Loaded.ConfigTrust().Approved(projectRoot(a.Loaded.Cwd), statusLineTrustName, s.digest())
		if ok {
			st.active = &s
			return st
		}
		st.pending, st.err = &s, err
	}
	return st
}

// StatusLine returns what the terminal UI calls to run the status line
// command, or nil when no setting names one. Each call decides afresh
// which command runs, so an approval given during the session counts at
// once; with none to run it returns an empty line.
func (a *App) StatusLine() func(ctx context.Context, linesAdded, linesRemoved int) (string, error) {
	if len(a.statusLines) == 0 {
		return nil
	}
	started := time.Now()
	return func(ctx context.Context, added, removed int) (string, error) {
		st := a.statusLineState()
		if st.active == nil {
			return "", nil
		}
		in := a.statusInput(started)
		in.Cost.TotalLinesAdded, in.Cost.TotalLinesRemoved = added, removed
		r := statusline.Runner{Command: st.active.Line.Command, Dir: a.Env.Root, Env: a.Env.CommandEnviron(),
			Launcher: a.Env.Launcher, Timeout: st.active.Line.Timeout}
		line, err := r.Run(ctx, in)
		if err != nil || line == "" {
			return "", err
		}
		for range st.active.Line.Padding {
			line = " " + line
		}
		return line, nil
	}
}

// statusInput is the session's state as the command reads it.
func (a *App) statusInput(started time.Time) statusline.Input {
	s := a.owner
	used, window := s.ContextUse()
	percent := 0
	if window > 0 {
		percent = min(used*100/window, 100)
	}
	model := s.Model()
	// Claude Code's names, which status line scripts written for it test.
	mode := map[permission.Mode]string{permission.ModeAcceptEdits: "acceptEdits", permission.ModePlan: "plan"}[s.Mode()]
	switch {
	case mode != "":
	case a.opts.Yolo:
		mode = "bypassPermissions"
	default:
		mode = "default"
	}
	return statusline.Input{
		HookEventName: "Status", SessionID: s.ID(), Cwd: a.Env.Root,
		Model:          statusline.Model{ID: model, DisplayName: model},
		Workspace:      statusline.Workspace{CurrentDir: a.Env.Root, ProjectDir: a.Env.Root},
		Version:        version.Version,
		Cost:           statusline.Cost{TotalCostUSD: s.Spending().Session, TotalDurationMs: time.Since(started).Milliseconds()},
		PermissionMode: mode,
		Context:        statusline.Context{UsedTokens: used, WindowTokens: window, UsedPercent: percent},
		Agent:          s.Variant().Name,
	}
}

// StatusLineReview says which status line command runs and from where,
// and which project command waits for approval (its digest; empty when
// none does).
func (h host) StatusLineReview() (text, pending string) {
	st := h.a.statusLineState()
	switch {
	case st.active != nil:
		text = fmt.Sprintf("status line: %s (from %s)", st.active.Line.Command, st.active.Name)
	case len(h.a.statusLines) == 0:
		text = "no status line command is set: the built-in line shows (set statusLine in ~/.shiro-neko/config.json)"
	default:
		text = "status line: the built-in line shows"
	}
	if p := st.pending; p != nil {
		text += fmt.Sprintf("\n\nstatus line command from %s is not approved: it runs only once you approve it\ncommand: %s\nsha256:  %s",
			p.Name, p.Line.Command, p.digest())
		if st.err != nil {
			text += fmt.Sprintf("\n(the approvals could not be read: %v)", st.err)
		}
		text += "\n\nA project's status line command runs on this machine (in the sandbox) every time the conversation changes."
		pending = p.digest()
	}
	return text, pending
}

// ApproveStatusLine approves the project's status line command whose
// digest the person was shown.
func (h host) ApproveStatusLine(digest string) error {
	st := h.a.statusLineState()
	if st.pending == nil {
		return fmt.Errorf("no project status line command is waiting for approval")
	}
	if digest != st.pending.digest() {
		return fmt.Errorf("the status line command of %s changed since it was shown (sha256 now %s): review it again with /statusline", st.pending.Name, st.pending.digest()[:12])
	}
	return h.a.Loaded.ConfigTrust().Approve(projectRoot(h.a.Loaded.Cwd), statusLineTrustName, digest, time.Now())
}

// announceStatusLine offers the approval of a project's status line
// command at start, when someone attends to answer.
func (a *App) announceStatusLine() {
	if !a.opts.Attended {
		return
	}
	if review := commands.StatusLineReview(host{a}); len(review.Choices) > 0 {
		a.publish(protocol.CommandResultEvent{Command: "statusline", Output: review.Output, Choices: review.Choices})
	}
}
