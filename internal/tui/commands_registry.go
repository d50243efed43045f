package tui

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/registry"
)

// registryTimeout bounds one /registry fetch.
const registryTimeout = 30 * time.Second

// registryClient is the client for /registry: the one given in Options,
// else one built from the user's settings (which take registry trust from
// the user's own config only).
func (m *model) registryClient() *registry.Client {
	if m.opts.Registry != nil {
		return m.opts.Registry
	}
	return registry.New(registry.OptionsFrom(m.app.Loaded.Settings, m.app.Loaded.Paths))
}

// cmdRegistry lists, searches, installs and removes registry skills and
// plugins. An install shows the checked entry and asks first. An install
// or removal is applied when the next turn starts (never halfway through
// one): the app reloads skills and plugins then, and the turn says so.
func (m *model) cmdRegistry(args string) tea.Cmd {
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	c := m.registryClient()
	switch verb {
	case "", "list":
		return m.registrySearch(c, "")
	case "search":
		return m.registrySearch(c, rest)
	case "installed":
		m.note(noteInfo, registryInstalled(c))
		return nil
	case "add", "install":
		return m.registryAdd(c, rest)
	case "remove", "uninstall":
		ref, err := registry.ParseRef(rest)
		if err != nil {
			m.note(noteError, err.Error())
			return nil
		}
		change, err := c.Remove(ref)
		if err != nil {
			m.note(noteError, err.Error())
			return nil
		}
		m.app.RequestReload()
		m.note(noteSuccess, fmt.Sprintf("removed %s %s (%s); this takes effect from your next message", change.Kind, change.Name, change.Path))
		return nil
	}
	// Any other bare word is a search.
	return m.registrySearch(c, strings.TrimSpace(args))
}

func (m *model) registrySearch(c *registry.Client, q string) tea.Cmd {
	ctx := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, registryTimeout)
		defer cancel()
		idx, err := c.List(ctx)
		return commandResultMsg{apply: func(m *model) tea.Cmd {
			if err != nil {
				m.note(noteError, err.Error())
				return nil
			}
			m.note(noteInfo, registryTable(c, idx, q))
			return nil
		}}
	}
}

func registryTable(c *registry.Client, idx *registry.Index, q string) string {
	var b strings.Builder
	for _, p := range idx.Problems {
		fmt.Fprintf(&b, "skipped %v\n", p)
	}
	entries := idx.Search(q)
	if len(entries) == 0 {
		if q == "" {
			fmt.Fprintf(&b, "the registry index at %s lists nothing", idx.Source)
		} else {
			fmt.Fprintf(&b, "nothing in the registry matches %q", q)
		}
		return b.String()
	}
	installed := map[registry.Ref]bool{}
	if list, err := c.Installed(); err == nil {
		for _, e := range list {
			installed[registry.Ref{Kind: e.Kind, Name: e.Name}] = true
		}
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tDESCRIPTION")
	for _, e := range entries {
		desc := e.Description
		if installed[e.Ref()] {
			desc += " (installed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Kind, e.Name, desc)
	}
	_ = tw.Flush()
	b.WriteString("/registry add NAME shows an entry and installs it once you agree")
	return b.String()
}

func registryInstalled(c *registry.Client) string {
	list, err := c.Installed()
	if err != nil {
		return err.Error()
	}
	if len(list) == 0 {
		return fmt.Sprintf("nothing is installed from the registry (%s, %s)", c.SkillsDir(), c.PluginsDir())
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tSIGNER\tDESCRIPTION")
	for _, e := range list {
		signer, desc := e.Signer, e.Description
		if signer == "" {
			signer = "-"
		}
		if e.Problem != "" {
			desc = "NOT LOADING: " + e.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Kind, e.Name, signer, desc)
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// registryAdd fetches and checks an entry off the program's goroutine,
// then shows what was checked and asks before anything is written.
func (m *model) registryAdd(c *registry.Client, name string) tea.Cmd {
	ref, err := registry.ParseRef(name)
	if err != nil {
		m.note(noteError, err.Error()+" (usage: /registry add NAME, skill:NAME or plugin:NAME)")
		return nil
	}
	ctx := m.ctx
	m.note(noteInfo, "fetching and checking "+ref.String()+"…")
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, registryTimeout)
		defer cancel()
		staged, err := c.Stage(ctx, ref)
		return commandResultMsg{apply: func(m *model) tea.Cmd {
			if err != nil {
				m.note(noteError, err.Error())
				return nil
			}
			e := staged.Entry()
			m.confirm = &confirmPrompt{
				question: fmt.Sprintf("Install %s %s?", e.Kind, e.Name),
				detail:   splitLines(staged.Preview()),
				yes: func(m *model) tea.Cmd {
					change, err := c.Install(staged)
					if err != nil {
						m.note(noteError, err.Error())
						return nil
					}
					m.app.RequestReload()
					m.note(noteSuccess, fmt.Sprintf("installed %s %s to %s; it takes effect from your next message", change.Kind, change.Name, change.Path))
					return nil
				},
				no: func(m *model) tea.Cmd {
					m.note(noteNotice, fmt.Sprintf("not installed: %s %s", e.Kind, e.Name))
					return nil
				},
			}
			return nil
		}}
	}
}
