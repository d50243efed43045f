package nav

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of tree.
const (
	treeDefaultDepth = 3
	treeMaxDepth     = 6
	treeMaxEntries   = 400
)

type treeInput struct {
	Path  string `json:"path,omitempty"`
	Depth *int   `json:"depth,omitempty" jsonschema:"default 3"`
}

func treeTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[treeInput]{
		Info: tool.Info{
			Name:        "tree",
			Description: "Indented tree of a directory; ignored files hidden.",
			Guidance:    "tree: the shape of a directory.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "depth", 1, treeMaxDepth) },
		Plan: func(in *treeInput) tool.Plan {
			p := fileop.OrRoot(in.Path)
			return tool.Plan{Subjects: []string{p}, Title: fileop.Title(p)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *treeInput) (tool.Result, error) {
			return tool.TextOf(tree(ctx, env, in))
		},
	})
}

func tree(ctx context.Context, env *workspace.Env, in *treeInput) (string, error) {
	depth := tool.Or(in.Depth, treeDefaultDepth)
	root, err := resolveDir(env, in.Path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(root + "/\n")
	n, full := 0, false
	base := 0
	if root != "." {
		base = strings.Count(root, "/") + 1
	}
	err = workspace.Walk(ctx, env, root, workspace.WalkOptions{MaxDepth: depth}, func(rel string, d fs.DirEntry) error {
		if n == treeMaxEntries {
			full = true
			return fs.SkipAll
		}
		n++
		level := strings.Count(rel, "/") - base
		b.WriteString(strings.Repeat("  ", level+1))
		b.WriteString(d.Name())
		if d.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		return "", err
	}
	if n == 0 {
		b.WriteString("  (empty)\n")
	}
	if full {
		fmt.Fprintf(&b, "[stopped at %d entries; use a subdirectory or a smaller depth]\n", treeMaxEntries)
	}
	return tool.Cap(strings.TrimSuffix(b.String(), "\n")), nil
}

// resolveDir resolves p in the jail and requires a directory there,
// returning its path from the root for workspace.Walk.
func resolveDir(env *workspace.Env, p string) (string, error) {
	abs, err := env.Resolve(p)
	if err != nil {
		return "", err
	}
	rel := env.Rel(abs)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", tool.Failf("No such directory: %s", rel)
	case err != nil:
		return "", fmt.Errorf("%s: %w", rel, err)
	case !fi.IsDir():
		return "", tool.Failf("%s is a file, not a directory.", rel)
	}
	return rel, nil
}
