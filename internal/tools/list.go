package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Limits of list_dir.
const (
	listDefaultDepth = 2
	listMaxDepth     = 6
	listMaxEntries   = 300
)

type listDirTool struct{ env *Env }

const listDirSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Directory (default: workspace root)"},` +
	`"depth":{"type":"integer","minimum":1,"maximum":6,"description":"Levels to show (default 2)"},` +
	`"includeIgnored":{"type":"boolean","description":"Also show .gitignore/.shiroignore'd entries"}},` +
	`"additionalProperties":false}`

func (listDirTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "list_dir",
		Description: "Show a directory as a tree: directories end in /, files show their size. Ignored files are hidden.",
		Schema:      json.RawMessage(listDirSchema),
	}
}

func (listDirTool) Meta() Meta {
	return Meta{
		Set:      SetEditPlus,
		Guidance: "list_dir: see the layout of a directory, a few levels deep, with file sizes.",
		Subjects: PathField,
	}
}

// listNode is one entry of the tree being built.
type listNode struct {
	name     string
	entry    fs.DirEntry
	children []*listNode
	expanded bool
	// abs and comps locate a directory for expanding it later.
	abs   string
	comps []string
	rules *ignoreRules
}

func (t listDirTool) Run(ctx context.Context, call Call) (string, error) {
	var in struct {
		Path           string `json:"path"`
		Depth          *int   `json:"depth"`
		IncludeIgnored bool   `json:"includeIgnored"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	depth, err := IntArg("depth", in.Depth, listDefaultDepth, 1, listMaxDepth)
	if err != nil {
		return "", err
	}
	abs, rel, err := ResolveDir(env, in.Path, "; use read_file to read it.")
	if err != nil {
		return "", err
	}

	var comps []string
	if rel != "." {
		comps = strings.Split(rel, "/")
	}
	root := &listNode{name: rel, abs: abs, comps: comps}
	if !in.IncludeIgnored {
		root.rules = rulesAlong(env.Root, comps)
	}
	shown, hidden, full, err := expandBreadthFirst(ctx, root, depth)
	if err != nil {
		return "", err
	}

	var b strings.Builder
	b.WriteString(strings.TrimSuffix(rel, "/") + "/\n")
	if shown == 0 {
		b.WriteString("  (empty)\n")
	}
	writeTree(&b, root, 1)
	if full {
		fmt.Fprintf(&b, "[stopped at %d entries; list a subdirectory or use a smaller depth to see the rest]\n", listMaxEntries)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "[%d ignored entries hidden; includeIgnored: true shows them]\n", hidden)
	}
	return Cap(strings.TrimRight(b.String(), "\n")), nil
}

// expandBreadthFirst fills the tree level by level, so that when the entry
// limit is reached the shallow structure is complete and only deep detail
// is missing.
func expandBreadthFirst(ctx context.Context, root *listNode, depth int) (shown, hidden int, full bool, err error) {
	queue := []*listNode{root}
	level := map[*listNode]int{root: 0}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, 0, false, err
		}
		n := queue[0]
		queue = queue[1:]
		entries, h, rerr := readVisible(n.abs, n.comps, n.rules)
		if rerr != nil {
			if n == root {
				return 0, 0, false, fmt.Errorf("list %s: %w", root.name, rerr)
			}
			continue // an unreadable subdirectory shows as unexpanded
		}
		hidden += h
		n.expanded = true
		if room := listMaxEntries - shown; len(entries) > room {
			entries, full = entries[:room], true
		}
		for _, e := range entries {
			child := &listNode{name: e.Name(), entry: e}
			n.children = append(n.children, child)
			shown++
			if e.IsDir() && level[n]+1 < depth {
				child.abs = filepath.Join(n.abs, e.Name())
				child.comps = append(slices.Clip(n.comps), e.Name())
				child.rules = n.rules
				if n.rules != nil {
					child.rules = n.rules.withDir(child.abs, child.comps)
				}
				level[child] = level[n] + 1
				queue = append(queue, child)
			}
		}
		if full {
			break
		}
	}
	return shown, hidden, full, nil
}

// writeTree prints a node's children, directories first, indented two
// spaces per level.
func writeTree(b *strings.Builder, n *listNode, indent int) {
	kids := slices.Clone(n.children)
	slices.SortStableFunc(kids, func(x, y *listNode) int {
		return boolOrder(y.entry.IsDir()) - boolOrder(x.entry.IsDir())
	})
	pad := strings.Repeat("  ", indent)
	for _, k := range kids {
		b.WriteString(pad + describeEntry(k) + "\n")
		if k.expanded {
			writeTree(b, k, indent+1)
		}
	}
}

func boolOrder(v bool) int {
	if v {
		return 1
	}
	return 0
}

func describeEntry(n *listNode) string {
	e := n.entry
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		return n.name + "@ (symlink, not followed)"
	case e.IsDir() && !n.expanded:
		return n.name + "/ …" // not opened: deeper than depth, or past the entry limit
	case e.IsDir():
		return n.name + "/"
	}
	info, err := e.Info()
	if err != nil {
		return n.name
	}
	return n.name + " (" + humanSize(info.Size()) + ")"
}

// humanSize prints a byte count as B, K, M or G.
func humanSize(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%dB", n)
	case n < k*k:
		return fmt.Sprintf("%.1fK", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1fM", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1fG", float64(n)/(k*k*k))
}
