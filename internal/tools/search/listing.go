package search

import (
	"container/heap"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of the listing tools.
const (
	findDefaultLimit   = 100
	findMaxLimit       = 1000
	recentDefaultLimit = 20
	recentMaxLimit     = 200
)

// ---- find_files ----

type findFilesInput struct {
	Name  string `json:"name"`
	Limit *int   `json:"limit,omitempty" jsonschema:"default 100"`
}

func findFilesTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[findFilesInput]{
		Info: tool.Info{
			Name:        "find_files",
			Description: "Find files and directories whose name contains a text (case-insensitive).",
			Guidance:    "find_files: locate a file when you know part of its name.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindSearch,
			Subject:     tool.NoSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "limit", 1, findMaxLimit) },
		Check: func(in *findFilesInput) error {
			if in.Name == "" {
				return tool.Failf("name is required: a part of the file name, e.g. config.")
			}
			return nil
		},
		Plan: func(in *findFilesInput) tool.Plan { return tool.Plan{Title: fileop.Title(in.Name)} },
		Run: func(ctx context.Context, _ tool.Runtime, in *findFilesInput) (tool.Result, error) {
			return tool.TextOf(findFiles(ctx, env, in))
		},
	})
}

func findFiles(ctx context.Context, env *workspace.Env, in *findFilesInput) (string, error) {
	limit := tool.Or(in.Limit, findDefaultLimit)
	needle := strings.ToLower(in.Name)
	var found []string
	more := false
	err := workspace.Walk(ctx, env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
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
	return tool.Cap(out), nil
}

// ---- recent_files ----

type recentFilesInput struct {
	Limit *int `json:"limit,omitempty" jsonschema:"default 20"`
}

func recentFilesTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[recentFilesInput]{
		Info: tool.Info{
			Name:        "recent_files",
			Description: "Most recently modified files, newest first.",
			Guidance:    "recent_files: what was edited lately.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindSearch,
			Subject:     tool.NoSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "limit", 1, recentMaxLimit) },
		// No Plan: the call has no subject, and no argument worth a title.
		Run: func(ctx context.Context, _ tool.Runtime, in *recentFilesInput) (tool.Result, error) {
			return tool.TextOf(recentFiles(ctx, env, in))
		},
	})
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

func recentFiles(ctx context.Context, env *workspace.Env, in *recentFilesInput) (string, error) {
	limit := tool.Or(in.Limit, recentDefaultLimit)
	h := &oldestFirst{}
	err := workspace.Walk(ctx, env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
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
	return tool.Cap(strings.Join(rows, "\n")), nil
}
