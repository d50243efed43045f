package files

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

type writeFileInput struct {
	Path    string `json:"path" jsonschema:"File path, relative to the workspace root"`
	Content string `json:"content" jsonschema:"The whole new content"`

	// planned is the write, once Preview or Run computed it.
	planned *writePlan
}

// writePlan is one write_file call computed against the file.
type writePlan struct {
	change fileop.Change
	// chars is the length of the content as given, for the result.
	chars int
	notes []string
}

func writeFileTool(env *workspace.Env) tool.Tool {
	plan := func(in *writeFileInput) (*writePlan, error) {
		return fileop.Planned(&in.planned, func() (*writePlan, error) { return planWrite(env, in.Path, in.Content) })
	}
	return tool.New(tool.Def[writeFileInput]{
		Info: tool.Info{
			Name:        "write_file",
			Description: "Create a file or replace its whole content. Parent directories are created. For changes to an existing file prefer edit_file.",
			Guidance:    "write_file: create a file or rewrite it whole; for changes to an existing file use edit_file.",
			Set:         tool.SetCore,
			Effect:      tool.Writes,
			Kind:        protocol.KindEdit,
			Subject:     tool.PathSubject,
		},
		Check: func(in *writeFileInput) error {
			if in.Path == "" {
				return tool.Failf("write_file needs both path and content")
			}
			return nil
		},
		Plan: func(in *writeFileInput) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Writes: fileop.PathSubjects(in.Path), Title: fileop.Title(in.Path)}
		},
		Preview: func(_ context.Context, in *writeFileInput) (*protocol.Diff, error) {
			p, err := plan(in)
			if err != nil {
				return nil, err
			}
			return p.change.Diff(), nil
		},
		Run: func(_ context.Context, _ tool.Runtime, in *writeFileInput) (tool.Result, error) {
			p, err := plan(in)
			if err != nil {
				return tool.Result{}, err
			}
			c := &p.change
			if c.Existed && c.Before == c.After {
				return tool.Text(fmt.Sprintf("%s already has this content; nothing was written.", c.Rel)), nil
			}
			if err := c.Apply(env); err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Output: p.result(), Diff: c.Diff()}, nil
		},
	})
}

// planWrite computes what write_file will put at p: content, with the
// file's CRLF line endings when it has them and content has none.
func planWrite(env *workspace.Env, p, content string) (*writePlan, error) {
	rel, err := fileop.Rel(env, p)
	if err != nil {
		return nil, err
	}
	old, existed, err := fileop.ReadExisting(env, rel, func(fi fs.FileInfo) error {
		if fi.IsDir() {
			return tool.Failf("%s is a directory; give a file path.", rel)
		}
		return tool.Failf("%s is not a regular file (%s); write_file replaces files only.", rel, fi.Mode().Type())
	})
	if err != nil {
		return nil, err
	}
	w := &writePlan{chars: utf8.RuneCountInString(content)}
	data := content
	if existed && !workspace.IsBinary([]byte(old)) && dominantCRLF(old) && !strings.Contains(content, "\r") && strings.Contains(content, "\n") {
		data = strings.ReplaceAll(content, "\n", "\r\n")
		w.notes = append(w.notes, "kept the file's CRLF line endings")
	}
	w.change = fileop.Change{Rel: rel, Existed: existed, Before: old, After: data, Perm: 0o644, MakeDirs: true}
	return w, nil
}

func (w *writePlan) result() string {
	c := &w.change
	msg := fmt.Sprintf("Wrote %d chars to %s", w.chars, c.Rel)
	if !c.Existed {
		msg += " (new file)"
	}
	if len(w.notes) > 0 {
		msg += " (" + strings.Join(w.notes, "; ") + ")"
	}
	if c.Existed && collapsedRewrite(c.Before, c.After) {
		msg += fmt.Sprintf("\nWarning: %s went from %d lines to %d at about the same size: line breaks or whitespace may have been collapsed. Read the file back to check it.",
			c.Rel, textLineCount(c.Before), textLineCount(c.After))
	}
	return msg
}

// collapsedRewrite spots a rewrite that kept roughly the size of the file
// but lost most of its line breaks: the mark of content whose newlines were
// turned into spaces or escaped on the way through the model.
func collapsedRewrite(old, new string) bool {
	oldChars, newChars := utf8.RuneCountInString(old), utf8.RuneCountInString(new)
	if oldChars == 0 {
		return false
	}
	ratio := float64(newChars) / float64(oldChars)
	return ratio >= 0.5 && ratio <= 1.5 && textLineCount(new)*2 < textLineCount(old)
}

func textLineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// dominantCRLF reports whether most of s's line breaks are CRLF.
func dominantCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > 0 && crlf*2 > strings.Count(s, "\n")
}
