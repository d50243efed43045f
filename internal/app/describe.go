package app

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// DescribePlugins lists the active plugins in chain order and what failed
// to load, for `shiro plugins` and /plugins.
func DescribePlugins(a *App) string {
	var b strings.Builder
	ext := a.ext.Load()
	ps := ext.plugins.Plugins()
	if len(ps) == 0 {
		b.WriteString("no plugins are active (--no-plugins, or config plugins is empty): the guard is off\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for i, p := range ps {
			fmt.Fprintf(tw, "%d.\t%s\t%s\n", i+1, p.Name, p.Description)
		}
		_ = tw.Flush()
	}
	if a.Hooks != nil {
		if n := len(a.Hooks.Status()); n > 0 {
			fmt.Fprintf(&b, "then %d external hook(s): see `shiro hooks list`\n", n)
		}
	}
	writeProblems(&b, ext.problems, "plugin")
	writeProblems(&b, a.startup, "config")
	return b.String()
}

// DescribeSkills lists every skill with its origin, and the files that did
// not load, for `shiro skills` and /skills.
func DescribeSkills(a *App) string {
	var b strings.Builder
	ext := a.ext.Load()
	list := ext.skills.List()
	if len(list) == 0 {
		b.WriteString("no skills loaded\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Origin, s.Description)
	}
	_ = tw.Flush()
	writeProblems(&b, ext.problems, "skill")
	return b.String()
}

// DescribeHookProblems lists the hook folders that did not load, for
// `shiro hooks list`.
func DescribeHookProblems(a *App) string {
	var b strings.Builder
	writeProblems(&b, a.startup, "hook")
	return b.String()
}

func writeProblems(b *strings.Builder, ps []Problem, kind string) {
	for _, p := range ps {
		if p.Kind == kind {
			b.WriteString("problem: " + p.String() + "\n")
		}
	}
}
