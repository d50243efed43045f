package navtools

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Limits of the listing tools.
const (
	treeDefaultDepth   = 3
	treeMaxDepth       = 6
	treeMaxEntries     = 400
	findDefaultLimit   = 100
	findMaxLimit       = 1000
	recentDefaultLimit = 20
	recentMaxLimit     = 200
)

// walkDir checks that p is a directory in the jail and returns it
// relative to the root, for tools.Walk.
func walkDir(env *tools.Env, p string) (string, error) {
	_, rel, err := tools.ResolveDir(env, p, ".")
	return rel, err
}

// ---- tree ----

type treeTool struct{ env *tools.Env }

func (treeTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "tree",
		Description: "Indented tree of a directory; ignored files hidden.",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},` +
			`"depth":{"type":"integer","minimum":1,"maximum":6,"description":"default 3"}},` +
			`"additionalProperties":false}`),
	}
}

func (treeTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "tree: the shape of a directory.", Subjects: tools.PathField}
}

func (t treeTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Path  string `json:"path"`
		Depth *int   `json:"depth"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	depth, err := tools.IntArg("depth", in.Depth, treeDefaultDepth, 1, treeMaxDepth)
	if err != nil {
		return "", err
	}
	root, err := walkDir(env, in.Path)
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
	err = tools.Walk(ctx, env, root, tools.WalkOptions{MaxDepth: depth}, func(rel string, d fs.DirEntry) error {
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
	return tools.Cap(strings.TrimSuffix(b.String(), "\n")), nil
}

// ---- find_files ----

type findFilesTool struct{ env *tools.Env }

func (findFilesTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "find_files",
		Description: "Find files and directories whose name contains a text (case-insensitive).",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":1000,"description":"default 100"}},` +
			`"required":["name"],"additionalProperties":false}`),
	}
}

func (findFilesTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "find_files: locate a file when you know part of its name."}
}

func (t findFilesTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Name  string `json:"name"`
		Limit *int   `json:"limit"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.Name == "" {
		return "", tools.Failf("name is required: a part of the file name, e.g. config.")
	}
	limit, err := tools.IntArg("limit", in.Limit, findDefaultLimit, 1, findMaxLimit)
	if err != nil {
		return "", err
	}
	needle := strings.ToLower(in.Name)
	var found []string
	more := false
	err = tools.Walk(ctx, env, ".", tools.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if !strings.Contains(strings.ToLower(d.Name()), needle) {
			return nil
		}
		if len(found) == limit {
			more = true
			return fs.SkipAll
		}
		if d.IsDir() {
			rel += "/"
		}
		found = append(found, rel)
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(found) == 0 {
		return fmt.Sprintf("No file names contain %q.", in.Name), nil
	}
	out := strings.Join(found, "\n")
	if more {
		out += fmt.Sprintf("\n[first %d shown; there are more]", limit)
	}
	return tools.Cap(out), nil
}

// ---- recent_files ----

type recentFilesTool struct{ env *tools.Env }

func (recentFilesTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "recent_files",
		Description: "Most recently modified files, newest first.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"default 20"}},` +
			`"additionalProperties":false}`),
	}
}

func (recentFilesTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "recent_files: what was edited lately."}
}

// recentFile is one candidate of recent_files.
type recentFile struct {
	rel string
	mod time.Time
}

// oldestFirst is a min-heap on modification time, keeping the newest N.
type oldestFirst []recentFile

func (h oldestFirst) Len() int { return len(h) }
func (h oldestFirst) Less(i, j int) bool {
	if !h[i].mod.Equal(h[j].mod) {
		return h[i].mod.Before(h[j].mod)
	}
	return h[i].rel > h[j].rel
}
func (h oldestFirst) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *oldestFirst) Push(x any)   { *h = append(*h, x.(recentFile)) }
func (h *oldestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (t recentFilesTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Limit *int `json:"limit"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	limit, err := tools.IntArg("limit", in.Limit, recentDefaultLimit, 1, recentMaxLimit)
	if err != nil {
		return "", err
	}
	h := &oldestFirst{}
	err = tools.Walk(ctx, env, ".", tools.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed while walking
		}
		f := recentFile{rel: rel, mod: fi.ModTime()}
		if h.Len() < limit {
			heap.Push(h, f)
		} else if (*h)[0].mod.Before(f.mod) {
			(*h)[0] = f
			heap.Fix(h, 0)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if h.Len() == 0 {
		return "No files.", nil
	}
	rows := make([]string, h.Len())
	for i := len(rows) - 1; i >= 0; i-- {
		f := heap.Pop(h).(recentFile)
		rows[i] = f.mod.Local().Format("2006-01-02 15:04:05") + "  " + f.rel
	}
	return tools.Cap(strings.Join(rows, "\n")), nil
}
