package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/llm"
)

// ---- read_file ----

type readFileTool struct{ env *Env }

const readFileSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"File path, relative to the workspace root"},` +
	`"offset":{"type":"integer","minimum":1,"description":"First line, 1-based"},` +
	`"limit":{"type":"integer","minimum":1,"description":"Max lines (default 2000)"}},` +
	`"required":["path"],"additionalProperties":false}`

func (readFileTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "read_file",
		Description: "Read a text file. Lines come back as `N: text`; page long files with offset/limit.",
		Schema:      json.RawMessage(readFileSchema),
	}
}

func (readFileTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Guidance: "read_file: read a file before you edit it; page long files with offset and limit.",
		Subjects: PathField,
	}
}

func (t readFileTool) Run(_ context.Context, call Call) (string, error) {
	var in readRequest
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.Path == "" {
		return "", Failf("path is required")
	}
	out, err := readText(env, in, ResultCap)
	if err != nil {
		return "", err
	}
	return Cap(out), nil
}

// ---- read_many_files ----

type readManyTool struct{ env *Env }

const readManyMax = 20

const readManySchema = `{"type":"object","properties":{"files":{"type":"array","minItems":1,"maxItems":20,"items":{` +
	`"type":"object","properties":{"path":{"type":"string"},` +
	`"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1}},` +
	`"required":["path"],"additionalProperties":false}}},` +
	`"required":["files"],"additionalProperties":false}`

func (readManyTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "read_many_files",
		Description: "Read up to 20 text files at once (same output and offset/limit as read_file), one `===== path =====` block each.",
		Schema:      json.RawMessage(readManySchema),
	}
}

func (readManyTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Guidance: "read_many_files: read several files in one call when you already know which you need.",
		Subjects: func(input json.RawMessage) []string {
			var in struct {
				Files []readRequest `json:"files"`
			}
			if json.Unmarshal(input, &in) != nil {
				return nil
			}
			paths := make([]string, 0, len(in.Files))
			for _, f := range in.Files {
				paths = append(paths, f.Path)
			}
			return paths
		},
	}
}

func (t readManyTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		Files []readRequest `json:"files"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if len(in.Files) == 0 || len(in.Files) > readManyMax {
		return "", Failf("files must list 1 to %d files; got %d", readManyMax, len(in.Files))
	}
	// Each file gets an equal share of the result, so a long first file
	// cannot crowd the others out; each share ends with an offset hint.
	overhead := 0
	for _, req := range in.Files {
		overhead += len("===== ") + len(req.Path) + len(" =====\n") + len("\n\n")
	}
	share := (ResultCap - overhead) / len(in.Files)
	blocks := make([]string, len(in.Files))
	var wg sync.WaitGroup
	for i, req := range in.Files {
		wg.Go(func() {
			body, err := readText(env, req, share)
			if err != nil {
				body = "[unreadable: " + err.Error() + "]"
			}
			blocks[i] = "===== " + req.Path + " =====\n" + body
		})
	}
	wg.Wait()
	return Cap(strings.Join(blocks, "\n\n")), nil
}

// ---- write_file ----

type writeFileTool struct{ env *Env }

const writeFileSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"File path, relative to the workspace root"},` +
	`"content":{"type":"string","description":"The whole new content"}},` +
	`"required":["path","content"],"additionalProperties":false}`

func (writeFileTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "write_file",
		Description: "Create a file or replace its whole content. Parent directories are created. For changes to an existing file prefer edit_file.",
		Schema:      json.RawMessage(writeFileSchema),
	}
}

func (writeFileTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Mutating: true,
		Guidance: "write_file: create a file or rewrite it whole; for changes to an existing file use edit_file.",
		Subjects: PathField,
		Writes:   PathField,
	}
}

func (t writeFileTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		Path    *string `json:"path"`
		Content *string `json:"content"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.Path == nil || *in.Path == "" || in.Content == nil {
		return "", Failf("write_file needs both path and content")
	}
	abs, err := env.Resolve(*in.Path)
	if err != nil {
		return "", err
	}
	disp := displayPath(env, *in.Path, abs)
	content := *in.Content

	old, existed, err := readExisting(abs, disp)
	if err != nil {
		return "", err
	}
	var notes []string
	data := content
	if existed && !IsBinary([]byte(old)) && dominantCRLF(old) && !strings.Contains(content, "\r") && strings.Contains(content, "\n") {
		data = strings.ReplaceAll(content, "\n", "\r\n")
		notes = append(notes, "kept the file's CRLF line endings")
	}
	if existed && old == data {
		return fmt.Sprintf("%s already has this content; nothing was written.", disp), nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", fmt.Errorf("create the directory of %s: %w", disp, err)
	}
	if err := WriteFileAtomic(abs, []byte(data), 0o644); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Wrote %d chars to %s", utf8.RuneCountInString(content), disp)
	if !existed {
		msg += " (new file)"
	}
	if len(notes) > 0 {
		msg += " (" + strings.Join(notes, "; ") + ")"
	}
	if existed && collapsedRewrite(old, data) {
		msg += fmt.Sprintf("\nWarning: %s went from %d lines to %d at about the same size: line breaks or whitespace may have been collapsed. Read the file back to check it.",
			disp, textLineCount(old), textLineCount(data))
	}
	return msg, nil
}

// readExisting returns the current content of abs, if it is a file.
func readExisting(abs, disp string) (content string, existed bool, err error) {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", disp, err)
	}
	if fi.IsDir() {
		return "", false, Failf("%s is a directory; give a file path.", disp)
	}
	if !fi.Mode().IsRegular() {
		return "", false, Failf("%s is not a regular file (%s); write_file replaces files only.", disp, fi.Mode().Type())
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", disp, err)
	}
	return string(b), true, nil
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
