package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// The commands in this file change the session; while a turn runs they
// wait in the queue (except /bash, which only touches background
// commands).

func (m *model) cmdAgent(args string) tea.Cmd {
	if args == "" {
		var names []string
		for _, v := range agent.Variants() {
			names = append(names, v.Name)
		}
		m.picker = &picker{title: "agent", options: names, current: m.app.Session.Config().Variant.Name,
			choose: func(m *model, name string) tea.Cmd { m.setAgent(name); return nil }}
		return nil
	}
	m.setAgent(args)
	return nil
}

func (m *model) setAgent(name string) {
	v, err := agent.VariantNamed(name)
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	m.app.Session.SetVariant(v)
	n := len(m.app.Session.ActiveTools())
	tools := fmt.Sprintf("%d tools", n)
	if v.ReadOnly {
		tools = "read-only: " + tools
	}
	m.note(noteSuccess, fmt.Sprintf("agent is now %s, thinking %s (%s)", v.Name, v.Thinking, tools))
}

func (m *model) cmdThink(args string) tea.Cmd {
	if args == "" {
		levels := []string{string(llm.ThinkOff), string(llm.ThinkLow), string(llm.ThinkMedium), string(llm.ThinkHigh), string(llm.ThinkMax)}
		m.picker = &picker{title: "thinking level", options: levels, current: string(m.app.Session.Config().Variant.Thinking),
			choose: func(m *model, level string) tea.Cmd { m.setThinking(level); return nil }}
		return nil
	}
	m.setThinking(args)
	return nil
}

func (m *model) setThinking(level string) {
	t, err := llm.ParseThinking(level)
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	v := m.app.Session.Config().Variant
	v.Thinking = t
	m.app.Session.SetVariant(v)
	m.note(noteSuccess, fmt.Sprintf("thinking is now %s (agent %s)", t, v.Name))
}

func (m *model) cmdModel(args string) tea.Cmd {
	if args == "" {
		return m.cmdModels("")
	}
	m.setModel(args)
	return nil
}

func (m *model) setModel(id string) {
	m.app.Session.SetModel(id)
	m.note(noteSuccess, fmt.Sprintf("model is now %s (not checked: the next turn will tell if the provider knows it)", id))
}

// cmdModels asks the provider for its models off the program's goroutine
// and opens a picker with the answer.
func (m *model) cmdModels(string) tea.Cmd {
	settings := m.app.Loaded.Settings
	ctx := m.ctx
	m.note(noteInfo, "asking "+settings.Preset.Label+" for its models…")
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		models, warning, err := app.ListModels(ctx, settings)
		return commandResultMsg{apply: func(m *model) tea.Cmd {
			if warning != "" {
				m.note(noteNotice, warning)
			}
			if err != nil {
				m.note(noteError, "listing models: "+err.Error()+" (use /model <id> to set one by name)")
				return nil
			}
			if len(models) == 0 {
				m.note(noteNotice, "the provider listed no models; use /model <id>")
				return nil
			}
			if m.turn != nil {
				m.note(noteInfo, "models: "+strings.Join(models, ", "))
				return nil
			}
			m.picker = &picker{title: "model", options: models, current: m.app.Session.Config().Model,
				choose: func(m *model, id string) tea.Cmd { m.setModel(id); return nil }}
			return nil
		}}
	}
}

// cmdBash lists or stops background commands. Stopping waits for the
// process group to die, so it runs off the program's goroutine.
func (m *model) cmdBash(args string) tea.Cmd {
	bg := m.app.Background()
	fields := strings.Fields(args)
	if len(fields) == 0 || fields[0] == "list" {
		m.note(noteInfo, bashList(bg.List()))
		return nil
	}
	if fields[0] != "stop" || len(fields) != 2 {
		m.note(noteError, "usage: /bash [list | stop <id> | stop all]")
		return nil
	}
	var handles []int
	if fields[1] == "all" {
		for _, j := range bg.List() {
			if j.Running {
				handles = append(handles, j.Handle)
			}
		}
		if len(handles) == 0 {
			m.note(noteInfo, "no background command is running")
			return nil
		}
	} else {
		h, err := strconv.Atoi(fields[1])
		if err != nil {
			m.note(noteError, fmt.Sprintf("/bash stop takes a handle number or all, not %q", fields[1]))
			return nil
		}
		handles = []int{h}
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var lines []string
		var failed bool
		for _, h := range handles {
			job, err := bg.Stop(ctx, h)
			switch {
			case errors.Is(err, tools.ErrNoSuchHandle):
				failed = true
				lines = append(lines, fmt.Sprintf("no background command %d (/bash lists them)", h))
			case err != nil:
				failed = true
				lines = append(lines, fmt.Sprintf("stopping %d: %v", h, err))
			default:
				lines = append(lines, fmt.Sprintf("%d: %s — %s", job.Handle, job.Name, job.Status()))
			}
		}
		return commandResultMsg{apply: func(m *model) tea.Cmd {
			kind := noteSuccess
			if failed {
				kind = noteError
			}
			m.note(kind, strings.Join(lines, "\n"))
			m.countBackground()
			return nil
		}}
	}
}

func bashList(jobs []tools.BackgroundJob) string {
	if len(jobs) == 0 {
		return "no background commands this session"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 1, ' ', 0)
	for _, j := range jobs {
		fmt.Fprintf(tw, "%d:\t%s — %s\n\t   %s\n", j.Handle, j.Name, j.Status(), j.Command)
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// cmdClear starts the conversation over. The terminal's own scrollback is
// not touched: clearing it is not ours to do.
func (m *model) cmdClear(string) tea.Cmd {
	m.app.Session.SetHistory(nil)
	m.tr.clear()
	m.offset, m.follow = 0, true
	m.note(noteSuccess, "cleared: the conversation starts over (tokens used so far still count in /cost)")
	return nil
}

func (m *model) cmdExit(string) tea.Cmd { return m.quit() }

// cmdInit has the agent write AGENTS.md. When the project lacks the
// workflow tracker files it first asks whether to create them; shiro
// writes them itself (Scaffold never overwrites), then tells the agent.
func (m *model) cmdInit(string) tea.Cmd {
	if m.needsKey() {
		m.note(noteError, m.keyMessage())
		return nil
	}
	root := m.app.Env.Root
	if !workflow.NeedsScaffold(root) {
		return m.startInit(false)
	}
	m.confirm = &confirmPrompt{
		question: "Also create the project workflow files?",
		detail: []string{
			"TODO.md (now, next, maintenance), ROADMAP.md and docs/README.md,",
			"from short templates, at the root of the repository; files that exist are left alone.",
			"Then the agent writes AGENTS.md either way.",
		},
		yes: func(m *model) tea.Cmd {
			res, err := workflow.Scaffold(root)
			if err != nil {
				m.note(noteError, err.Error())
				return m.startInit(false)
			}
			var lines []string
			for _, p := range res.Written {
				lines = append(lines, "wrote "+m.app.Env.Rel(p))
			}
			for _, p := range res.Kept {
				lines = append(lines, "left alone "+m.app.Env.Rel(p)+" (it exists)")
			}
			m.note(noteSuccess, strings.Join(lines, "\n"))
			return m.startInit(true)
		},
		no: func(m *model) tea.Cmd { return m.startInit(false) },
	}
	return nil
}

// startInit sends the /init turn. /init is never run during a turn (it
// waits in the queue), so the session is free here.
func (m *model) startInit(scaffolded bool) tea.Cmd {
	return m.startTurn(workflow.InitPrompt(scaffolded))
}
