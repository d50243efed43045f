package prompt

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/tools"
)

// DefaultOverviewBytes bounds the workspace overview. The original sent up
// to 5,000 paths (often 100 KB or more) on every request; a few kilobytes
// orient the model, and glob, grep and list_dir find the rest on demand.
const DefaultOverviewBytes = 4000

// overviewDepth and overviewScan bound the walk behind the overview, so a
// huge workspace costs a bounded amount of start-up time.
const (
	overviewDepth = 4
	overviewScan  = 20000
)

// Overview lists the workspace, ignore-aware, within budget bytes. Shallow
// entries win over deep ones, so the top-level layout is always shown; what
// does not fit is counted, not silently dropped.
func Overview(ctx context.Context, env *tools.Env, budget int) string {
	type entry struct {
		path  string
		depth int
	}
	var all []entry
	err := tools.Walk(ctx, env, ".", tools.WalkOptions{MaxDepth: overviewDepth}, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			rel += "/"
		}
		all = append(all, entry{rel, strings.Count(strings.TrimSuffix(rel, "/"), "/")})
		if len(all) >= overviewScan {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || len(all) == 0 {
		return ""
	}
	slices.SortStableFunc(all, func(a, b entry) int { return cmp.Compare(a.depth, b.depth) })
	var chosen []string
	used := 0
	for _, e := range all {
		if used+len(e.path)+1 > budget {
			break
		}
		chosen = append(chosen, e.path)
		used += len(e.path) + 1
	}
	slices.Sort(chosen)
	var b strings.Builder
	b.WriteString("Workspace files (ignore-aware; directories end in /):\n")
	b.WriteString(strings.Join(chosen, "\n"))
	if rest := len(all) - len(chosen); rest > 0 {
		fmt.Fprintf(&b, "\n… and %s more entries; use glob, grep or list_dir to look further.", roughCount(rest, len(all) >= overviewScan))
	}
	return b.String()
}

// roughCount renders how many entries were left out, rounded down to two
// significant digits ("1,200+"). The overview sits in the cached prefix:
// an exact count would change with every file created anywhere in a large
// tree and invalidate the provider's cache for nothing the model needs.
func roughCount(n int, scanCut bool) string {
	if n < 100 && !scanCut {
		return strconv.Itoa(n)
	}
	unit := 1
	for n/unit >= 100 {
		unit *= 10
	}
	rounded := n / unit * unit
	s := strconv.Itoa(rounded)
	// Thousands separators, for reading at a glance.
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if rounded != n || scanCut {
		s += "+"
	}
	return s
}
