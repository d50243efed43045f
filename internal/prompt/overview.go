package prompt

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// DefaultOverviewBytes bounds the workspace overview, which goes out with
// every request. Measured (BenchmarkOverview): this repository's layout
// (every entry of the top two levels, the directories of the third) takes
// about 1.2 KB and fits whole; the Go standard library's source gets its
// top two levels in 4.1 KB, where the original's 5,000 paths took 223 KB.
// Twice the budget shows no more here, and glob, grep and list_dir find
// the rest on demand.
const DefaultOverviewBytes = 4000

// overviewDepth and overviewScan bound the walk behind the overview, so a
// huge workspace costs a bounded amount of start-up time.
const (
	overviewDepth = 4
	overviewScan  = 20000
)

// Overview lists the workspace, ignore-aware, within budget bytes. It
// shows whole levels of the tree, shallowest first: the first level that
// does not fit contributes only its directories (when they fit), so the
// layout is complete and no directory looks emptier than it is. What is
// left out is counted, not silently dropped.
func Overview(ctx context.Context, env *workspace.Env, budget int) string {
	var levels [][]string // entries by depth, each level in lexical order
	langs := languageTally{}
	scanned := 0
	err := workspace.Walk(ctx, env, ".", workspace.WalkOptions{MaxDepth: overviewDepth}, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			rel += "/"
		}
		depth := strings.Count(strings.TrimSuffix(rel, "/"), "/")
		for len(levels) <= depth {
			levels = append(levels, nil)
		}
		levels[depth] = append(levels[depth], rel)
		if !d.IsDir() {
			langs.add(rel)
		}
		if scanned++; scanned >= overviewScan {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || scanned == 0 {
		return ""
	}
	chosen := chooseLevels(levels, budget)
	slices.Sort(chosen)
	var b strings.Builder
	b.WriteString("Workspace files (ignore-aware; directories end in /):\n")
	b.WriteString(strings.Join(chosen, "\n"))
	if rest := scanned - len(chosen); rest > 0 {
		fmt.Fprintf(&b, "\n… and %s more entries below the levels shown; use glob, grep or list_dir to look further.", roughCount(rest, scanned >= overviewScan))
	}
	if line := langs.line(); line != "" {
		b.WriteString("\n" + line)
	}
	return b.String()
}

// chooseLevels takes whole levels while they fit in budget bytes (one line
// per entry), then the directories of the next level if they all fit. A
// first level too large even for that is cut, so something is shown.
func chooseLevels(levels [][]string, budget int) []string {
	var chosen []string
	used := 0
	for _, level := range levels {
		if size := linesSize(level); used+size <= budget {
			chosen = append(chosen, level...)
			used += size
			continue
		}
		var dirs []string
		for _, e := range level {
			if strings.HasSuffix(e, "/") {
				dirs = append(dirs, e)
			}
		}
		if len(dirs) > 0 && used+linesSize(dirs) <= budget {
			return append(chosen, dirs...)
		}
		if len(chosen) == 0 {
			for _, e := range level {
				if used+len(e)+1 > budget {
					break
				}
				chosen = append(chosen, e)
				used += len(e) + 1
			}
		}
		return chosen
	}
	return chosen
}

func linesSize(entries []string) int {
	n := 0
	for _, e := range entries {
		n += len(e) + 1
	}
	return n
}

// roughCount renders how many entries were left out, rounded down to one
// significant digit ("300+", "10,000+"). The overview sits in the cached
// prefix: an exact count would change with every file created anywhere in
// the tree and invalidate the provider's cache for nothing the model needs.
func roughCount(n int, scanCut bool) string {
	if n < 10 && !scanCut {
		return strconv.Itoa(n)
	}
	unit := 1
	for n/unit >= 10 {
		unit *= 10
	}
	rounded := n / unit * unit
	s := thousands(rounded)
	if rounded != n || scanCut {
		s += "+"
	}
	return s
}
