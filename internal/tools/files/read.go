package files

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// ---- read_file ----

type readFileInput struct {
	Path   string `json:"path" jsonschema:"File path, relative to the workspace root"`
	Offset *int   `json:"offset,omitempty" jsonschema:"First line, 1-based"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"Max lines (default 2000)"`
}

func readFileTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[readFileInput]{
		Info: tool.Info{
			Name:        "read_file",
			Description: "Read a text file. Lines come back as `N: text`; page long files with offset/limit. A picture (PNG, JPEG, GIF, WebP) comes back as an image you can see.",
			Guidance:    "read_file: read a file before you edit it; page long files with offset and limit.",
			Set:         tool.SetCore,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) {
			tool.Min(s, "offset", 1)
			tool.Min(s, "limit", 1)
		},
		Check: func(in *readFileInput) error { return fileop.RequirePath(in.Path) },
		Plan: func(in *readFileInput) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: readTitle(readRequest(*in))}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *readFileInput) (tool.Result, error) {
			out, err := readText(env, readRequest(*in), tool.ResultCap)
			var pic *pictureFile
			if errors.As(err, &pic) {
				return readPicture(env, pic)
			}
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Text(tool.Cap(out)), nil
		},
	})
}

// readTitle is a read's path, with the lines asked for when they are.
func readTitle(r readRequest) string {
	t := fileop.Title(r.Path)
	switch {
	case r.Offset != nil && r.Limit != nil:
		t += fmt.Sprintf(":%d-%d", *r.Offset, *r.Offset+*r.Limit-1)
	case r.Offset != nil:
		t += fmt.Sprintf(":%d-", *r.Offset)
	case r.Limit != nil:
		t += fmt.Sprintf(":1-%d", *r.Limit)
	}
	return t
}

// ---- read_many_files ----

const readManyMax = 20

type readManyInput struct {
	Files []readItem `json:"files"`
}

// readItem is one file of read_many_files: read_file's arguments without
// their descriptions, which the tool's description already gives.
type readItem struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
}

func readManyTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[readManyInput]{
		Info: tool.Info{
			Name:        "read_many_files",
			Description: "Read up to 20 text files at once (same output and offset/limit as read_file), one `===== path =====` block each.",
			Guidance:    "read_many_files: read several files in one call when you already know which you need.",
			Set:         tool.SetCore,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) {
			tool.Items(s, "files", 1, readManyMax)
			item := tool.Prop(s, "files").Items
			tool.Min(item, "offset", 1)
			tool.Min(item, "limit", 1)
		},
		Plan: func(in *readManyInput) tool.Plan {
			paths := make([]string, 0, len(in.Files))
			for _, f := range in.Files {
				paths = append(paths, f.Path)
			}
			title := fileop.Title(strings.Join(paths, ", "))
			return tool.Plan{Subjects: paths, Title: title}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *readManyInput) (tool.Result, error) {
			return tool.Text(readMany(env, in.Files)), nil
		},
	})
}

// readMany reads every file into its own block. Each file gets an equal
// share of the result, so a long first file cannot crowd the others out;
// each share ends with an offset hint. A file that cannot be read says why
// in its block.
func readMany(env *workspace.Env, files []readItem) string {
	overhead := 0
	for _, req := range files {
		overhead += len("===== ") + len(req.Path) + len(" =====\n") + len("\n\n")
	}
	share := (tool.ResultCap - overhead) / len(files)
	blocks := make([]string, len(files))
	var wg sync.WaitGroup
	for i, req := range files {
		wg.Go(func() {
			body, err := readText(env, readRequest(req), share)
			if err != nil {
				body = "[unreadable: " + err.Error() + "]"
			}
			blocks[i] = "===== " + req.Path + " =====\n" + body
		})
	}
	wg.Wait()
	return tool.Cap(strings.Join(blocks, "\n\n"))
}
