package docstest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/tool"
)

// toolCost is what the tools of the default configuration cost on every
// request: the name, description and schema of each offered tool.
type toolCost struct {
	attended, unattended []*tool.Info
}

func requestBytes(i *tool.Info) int { return len(i.Name) + len(i.Description) + len(i.Schema) }

func total(infos []*tool.Info) int {
	n := 0
	for _, i := range infos {
		n += requestBytes(i)
	}
	return n
}

// render is the generated section of docs/tools.md between the
// tool-cost markers: one row per tool set, of every registered tool, then
// what the default configuration offers with and without a person.
func (c toolCost) render(all map[string]*tool.Info) string {
	bySet := map[tool.Set][]*tool.Info{}
	for _, i := range all {
		bySet[i.Set] = append(bySet[i.Set], i)
	}
	var b strings.Builder
	b.WriteString("| set | tools | bytes | per tool |\n|---|---|---|---|\n")
	for _, set := range append(tool.AllSets(), tool.SetNone) {
		infos := bySet[set]
		if len(infos) == 0 {
			continue
		}
		slices.SortFunc(infos, func(a, b *tool.Info) int { return strings.Compare(a.Name, b.Name) })
		names := make([]string, len(infos))
		for i, info := range infos {
			names[i] = "`" + info.Name + "`"
		}
		label := string(set)
		switch {
		case set == tool.SetNone:
			label = "no set (session tools)"
		case !slices.Contains(tool.DefaultSets(), set):
			label += " (opt-in)"
		}
		sum := total(infos)
		fmt.Fprintf(&b, "| %s | %d: %s | %s | %s |\n", label, len(infos), strings.Join(names, ", "), thousands(sum), thousands((sum+len(infos)/2)/len(infos)))
	}
	a, u := total(c.attended), total(c.unattended)
	var left []string
	for _, i := range c.attended {
		if !slices.ContainsFunc(c.unattended, func(o *tool.Info) bool { return o.Name == i.Name }) {
			left = append(left, "`"+i.Name+"`")
		}
	}
	fmt.Fprintf(&b, "\nWith the default `toolSets`, the terminal UI offers %d tools for %s bytes, about %s tokens.\n"+
		"Headless mode, where nobody answers, leaves out %s: %d tools, %s bytes.\n",
		len(c.attended), thousands(a), thousands((a+2)/4), strings.Join(left, ", "), len(c.unattended), thousands(u))
	return b.String()
}

// thousands writes n with comma separators, as the docs write figures.
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// renderList is the generated section of docs/tools.md between the
// tool-list markers: every registered tool, what it says of itself, and
// the package that defines it.
func renderList(all map[string]*tool.Info, pkgs map[string]string) string {
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("| tool | set | effect | kind | rules match | package | notes |\n|---|---|---|---|---|---|---|\n")
	for _, name := range names {
		i := all[name]
		set := string(i.Set)
		if set == "" {
			set = "—"
		}
		var notes []string
		if i.Interactive {
			notes = append(notes, "needs a person: not offered when nobody attends")
		}
		if i.Destroys {
			notes = append(notes, "destroys: not offered to read-only agents")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | `%s` | %s |\n", name, set, i.Effect, i.Kind, subjectWords(i.Subject), pkgs[name], strings.Join(notes, "; "))
	}
	return b.String()
}

// subjectWords says what a tool's permission rules are matched against.
func subjectWords(k tool.SubjectKind) string {
	switch k {
	case tool.PathSubject:
		return "paths"
	case tool.CommandSubject:
		return "each command"
	case tool.URLSubject:
		return "the URL"
	case tool.TextSubject:
		return "text"
	}
	return "`*` only"
}
