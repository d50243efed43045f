package tui

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/notebook"
)

// The commands in this file only show something; they run even while a
// turn is running.

func (m *model) cmdHelp(string) tea.Cmd {
	m.note(noteInfo, helpText())
	return nil
}

// cmdCost shows the session's tokens: the main conversation with its
// cache use and the prompt memo (the app's cache report), then what
// subagents used, by model, since they may run on another model at
// another price.
func (m *model) cmdCost(string) tea.Cmd {
	cfg := m.app.Session.Config()
	lines := []string{
		fmt.Sprintf("model: %s (%s)", modelName(m), m.app.Loaded.Settings.Preset.ID),
		fmt.Sprintf("agent: %s, thinking %s", cfg.Variant.Name, cfg.Variant.Thinking),
	}
	lines = append(lines, m.app.CacheReport().Lines()...)
	subs := m.app.Session.SubagentUsage()
	if len(subs) == 0 {
		lines = append(lines, "subagents: none ran this session")
	} else {
		lines = append(lines, "subagents (counted apart from the above):")
		for _, su := range subs {
			u := su.Usage
			lines = append(lines, fmt.Sprintf("  %s: prompt tokens %s (uncached %s, cache write %s, cache read %s); output %s",
				su.Model, thousands(u.InputTokens+u.CacheWriteTokens+u.CacheReadTokens), thousands(u.InputTokens),
				thousands(u.CacheWriteTokens), thousands(u.CacheReadTokens), thousands(u.OutputTokens)))
		}
	}
	m.note(noteInfo, strings.Join(lines, "\n"))
	return nil
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprintf("%d", n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (m *model) cmdTools(string) tea.Cmd {
	active := map[string]bool{}
	for _, t := range m.app.Session.ActiveTools() {
		active[t.Spec().Name] = true
	}
	names := m.app.Tools.Names()
	var b strings.Builder
	fmt.Fprintf(&b, "%d offered this turn of %d registered\n", len(active), len(names))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, name := range names {
		t, _ := m.app.Tools.Get(name)
		set := string(t.Meta().Set)
		if set == "" {
			set = "session"
		}
		state := ""
		if !active[name] {
			state = "(not offered)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, set, state)
	}
	_ = tw.Flush()
	m.note(noteInfo, strings.TrimRight(b.String(), "\n"))
	return nil
}

func (m *model) cmdTodos(string) tea.Cmd {
	todos := m.app.Notebook.Todos()
	if len(todos) == 0 {
		m.note(noteInfo, "the task list is empty")
		return nil
	}
	done, total, blocked := m.app.Notebook.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "tasks: %d/%d done", done, total)
	if blocked > 0 {
		fmt.Fprintf(&b, ", %d blocked", blocked)
	}
	for _, t := range todos {
		b.WriteString("\n" + todoMark(t.Status) + " " + t.Content)
		if t.Note != "" {
			b.WriteString("  (" + t.Note + ")")
		}
	}
	m.note(noteInfo, b.String())
	return nil
}

func todoMark(s notebook.Status) string {
	switch s {
	case notebook.InProgress:
		return "[~]"
	case notebook.Done:
		return "[x]"
	case notebook.Blocked:
		return "[!]"
	}
	return "[ ]"
}

func (m *model) cmdSkills(string) tea.Cmd {
	m.note(noteInfo, strings.TrimRight(app.DescribeSkills(m.app), "\n"))
	return nil
}

func (m *model) cmdPlugins(string) tea.Cmd {
	m.note(noteInfo, strings.TrimRight(app.DescribePlugins(m.app), "\n"))
	return nil
}

func (m *model) cmdPermissions(string) tea.Cmd {
	grants := m.app.Grants()
	if len(grants) == 0 {
		m.note(noteInfo, "nothing granted this session: answering `a` at an approval prompt grants what its footer names")
		return nil
	}
	slices.Sort(grants)
	m.note(noteInfo, "granted this session (never saved):\n"+strings.Join(grants, "\n"))
	return nil
}

// cmdHooks lists hooks, or approves (through the review prompt) or
// revokes one.
func (m *model) cmdHooks(args string) tea.Cmd {
	r := m.app.Hooks
	if r == nil {
		m.note(noteInfo, "hooks are disabled (config hooks.enabled is false, or --no-plugins)")
		return nil
	}
	verb, name, _ := strings.Cut(args, " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "", "list":
		m.note(noteInfo, hooksTable(r.Status()))
	case "approve":
		for _, s := range r.Status() {
			if s.Name == name {
				if s.State == hooks.StateInvalid {
					m.note(noteError, fmt.Sprintf("hook %s cannot be approved: %s", name, s.Err))
					return nil
				}
				m.hookQueue = append([]hooks.Status{s}, m.hookQueue...)
				m.nextHookPrompt()
				return nil
			}
		}
		m.note(noteError, fmt.Sprintf("no hook is named %q: /hooks lists them", name))
	case "revoke":
		if err := r.Revoke(name); err != nil {
			m.note(noteError, err.Error())
			return nil
		}
		m.note(noteSuccess, "revoked hook "+name+": it blocks the calls it covers until approved again")
	default:
		m.note(noteError, "usage: /hooks [approve NAME | revoke NAME]")
	}
	return nil
}

func hooksTable(list []hooks.Status) string {
	if len(list) == 0 {
		return "no hooks found (.shiro/hooks in the project, hooks/ in ~/.shiro-neko)"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tTOOLS\tDIGEST\tSTATE")
	for _, s := range list {
		state := string(s.State)
		if s.Err != "" {
			state += " (" + s.Err + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Kind, strings.Join(s.Tools, ","), shortDigest(s.Digest), state)
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}
