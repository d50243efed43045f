package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of list_dir.
const (
	listDefaultDepth = 2
	listMaxDepth     = 6
	listMaxEntries   = 300
)

type listDirInput struct {
	Path           string `json:"path,omitempty" jsonschema:"Directory (default: workspace root)"`
	Depth          *int   `json:"depth,omitempty" jsonschema:"Levels to show (default 2)"`
	IncludeIgnored bool   `json:"includeIgnored,omitempty" jsonschema:"Also show .gitignore/.shiroignore'd entries"`
}

func listDirTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[listDirInput]{
		Info: tool.Info{
			Name:        "list_dir",
			Description: "Show a directory as a tree: directories end in /, files show their size. Ignored files are hidden.",
			Guidance:    "list_dir: see the layout of a directory, a few levels deep, with file sizes.",
			Set:         tool.SetEditPlus,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "depth", 1, listMaxDepth) },
		Plan: func(in *listDirInput) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: fileop.Title(fileop.OrRoot(in.Path))}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *listDirInput) (tool.Result, error) {
			return tool.TextOf(listDir(ctx, env, in))
		},
	})
}

// listNode is one entry of the tree being built.
type listNode struct {
	name     string
	entry    fs.DirEntry
	children []*listNode
	expanded bool
	// size is a file's size, when it could be read.
	size  int64
	sized bool
	// rel and comps locate a directory for expanding it later.
	rel   string
	comps []string
	rules *workspace.IgnoreRules
}

func listDir(ctx context.Context, env *workspace.Env, in *listDirInput) (string, error) {
	depth := tool.Or(in.Depth, listDefaultDepth)
	rel, err := resolveDir(env, in.Path, "; use read_file to read it.")
	if err != nil {
		return "", err
	}
	var comps []string
	if rel != "." {
		comps = strings.Split(rel, "/")
	}
	root := &listNode{name: rel, rel: rel, comps: comps}
	if !in.IncludeIgnored {
		root.rules = workspace.RulesAlong(env.Root, comps)
	}
	shown, hidden, full, err := expandBreadthFirst(ctx, env, root, depth)
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
	return tool.Cap(strings.TrimRight(b.String(), "\n")), nil
}

// resolveDir resolves p in the jail and requires a directory there,
// returning its path from the root. fileHint ends the refusal when p is a
// file: "X is a file, not a directory" + fileHint.
func resolveDir(env *workspace.Env, p, fileHint string) (string, error) {
	rel, err := fileop.Rel(env, p)
	if err != nil {
		return "", err
	}
	fi, err := env.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", tool.Failf("No such directory: %s", rel)
	case err != nil:
		return "", fmt.Errorf("%s: %w", rel, err)
	case !fi.IsDir():
		return "", tool.Failf("%s is a file, not a directory%s", rel, fileHint)
	}
	return rel, nil
}

// expandBreadthFirst fills the tree level by level, so that when the entry
// limit is reached the shallow structure is complete and only deep detail
// is missing.
func expandBreadthFirst(ctx context.Context, env *workspace.Env, root *listNode, depth int) (shown, hidden int, full bool, err error) {
	queue := []*listNode{root}
	level := map[*listNode]int{root: 0}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, 0, false, err
		}
		n := queue[0]
		queue = queue[1:]
		entries, h, rerr := env.ReadDirVisible(n.rel, n.comps, n.rules)
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
			child := &listNode{name: e.Name(), entry: e, rel: path.Join(n.rel, e.Name())}
			if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
				if fi, err := env.Lstat(child.rel); err == nil {
					child.size, child.sized = fi.Size(), true
				}
			}
			n.children = append(n.children, child)
			shown++
			if e.IsDir() && level[n]+1 < depth {
				child.comps = append(slices.Clip(n.comps), e.Name())
				child.rules = n.rules
				if n.rules != nil {
					child.rules = n.rules.WithDir(filepath.Join(env.Root, filepath.FromSlash(child.rel)), child.comps)
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
	case !n.sized:
		return n.name
	}
	return n.name + " (" + treeSize(n.size) + ")"
}

// treeSize prints a byte count as B, K, M or G.
func treeSize(n int64) string {
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
