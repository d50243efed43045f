package app

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// DescribePlugins lists the active plugins in chain order and the load
// problems (unknown names, bad manifests), for `shiro plugins` and /plugins.
func DescribePlugins(a *App) string {
	var b strings.Builder
	ps := a.Plugins.Plugins()
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
		n := len(a.Hooks.Status())
		if n > 0 {
			fmt.Fprintf(&b, "then %d external hook(s): see `shiro hooks list`\n", n)
		}
	}
	for _, p := range a.Problems {
		if strings.HasPrefix(p, "no such plugin") || strings.HasPrefix(p, "plugin ") {
			b.WriteString("problem: " + p + "\n")
		}
	}
	return b.String()
}

// DescribeSkills lists every skill with its origin, and the files that did
// not load, for `shiro skills` and /skills.
func DescribeSkills(a *App) string {
	var b strings.Builder
	list := a.Skills.List()
	if len(list) == 0 {
		b.WriteString("no skills loaded\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Origin, s.Description)
	}
	_ = tw.Flush()
	for _, p := range a.Problems {
		if strings.HasPrefix(p, "skill ") {
			b.WriteString("problem: " + p + "\n")
		}
	}
	return b.String()
}
