package navtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// countMaxFiles is how many files count_lines reports.
const countMaxFiles = 500

// fileStats are the facts file_info and count_lines read from a file.
type fileStats struct {
	lines  int
	binary bool
}

// statFile counts a file's lines in one streaming pass; a file with a NUL
// byte in its first BinarySniff bytes is binary and its lines are not
// counted.
func statFile(abs string) (fileStats, error) {
	f, err := os.Open(abs)
	if err != nil {
		return fileStats{}, err
	}
	defer func() { _ = f.Close() }()
	buf := make([]byte, 64*1024)
	var st fileStats
	first := true
	var last byte
	for {
		n, err := f.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if first && tools.IsBinary(chunk) {
				return fileStats{binary: true}, nil
			}
			first = false
			st.lines += bytes.Count(chunk, []byte{'\n'})
			last = chunk[n-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fileStats{}, err
		}
	}
	if !first && last != '\n' {
		st.lines++ // a last line without a newline
	}
	return st, nil
}

// humanSize renders a byte count briefly.
func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
}

// ---- file_info ----

type fileInfoTool struct{ env *tools.Env }

func (fileInfoTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "file_info",
		Description: "Size, line count, text or binary, and modification time of a file.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
	}
}

func (fileInfoTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "file_info: size and line count before reading a big file.", Subjects: tools.PathField}
}

func (t fileInfoTool) Run(_ context.Context, call tools.Call) (string, error) {
	var in struct {
		Path string `json:"path"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.Path == "" {
		return "", tools.Failf("path is required.")
	}
	abs, fi, err := tools.StatInJail(env, in.Path)
	if err != nil {
		return "", err
	}
	rel := env.Rel(abs)
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\n", rel)
	switch {
	case fi.IsDir():
		entries, err := os.ReadDir(abs)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		fmt.Fprintf(&b, "type: directory\nentries: %d\n", len(entries))
	case fi.Mode().IsRegular():
		st, err := statFile(abs)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		fmt.Fprintf(&b, "type: file\nsize: %d bytes (%s)\n", fi.Size(), humanSize(fi.Size()))
		if st.binary {
			b.WriteString("content: binary\n")
		} else {
			fmt.Fprintf(&b, "content: text\nlines: %d\n", st.lines)
		}
	default:
		fmt.Fprintf(&b, "type: %s\n", fi.Mode().Type())
	}
	fmt.Fprintf(&b, "mode: %s\nmodified: %s", fi.Mode().Perm(), fi.ModTime().Format(time.RFC3339))
	return b.String(), nil
}

// ---- count_lines ----

type countLinesTool struct{ env *tools.Env }

func (countLinesTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "count_lines",
		Description: "Line counts of a file, or of the text files under a directory, optionally matching a glob.",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},` +
			`"pattern":{"type":"string","description":"glob, e.g. *.go"}},` +
			`"additionalProperties":false}`),
	}
}

func (countLinesTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "count_lines: how big files or a directory are, in lines.", Subjects: tools.PathField}
}

func (t countLinesTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	include, err := parseInclude(in.Pattern)
	if err != nil {
		return "", err
	}
	abs, err := env.Resolve(in.Path)
	if err != nil {
		return "", err
	}
	rel := env.Rel(abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", tools.Failf("No such file or directory: %s", rel)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	if !fi.IsDir() {
		st, err := statFile(abs)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		if st.binary {
			return "", tools.Failf("%s is a binary file; it has no lines to count.", rel)
		}
		return fmt.Sprintf("%d\t%s", st.lines, rel), nil
	}
	var b strings.Builder
	files, total, binaries := 0, 0, 0
	more := false
	err = tools.Walk(ctx, env, rel, tools.WalkOptions{}, func(r string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !include.Match(r) {
			return nil
		}
		if files == countMaxFiles {
			more = true
			return fs.SkipAll
		}
		st, err := statFile(filepath.Join(env.Root, filepath.FromSlash(r)))
		if err != nil {
			return nil // removed or unreadable while walking
		}
		if st.binary {
			binaries++
			return nil
		}
		files++
		total += st.lines
		fmt.Fprintf(&b, "%d\t%s\n", st.lines, r)
		return nil
	})
	if err != nil {
		return "", err
	}
	if files == 0 {
		return fmt.Sprintf("No text files under %s match.", rel), nil
	}
	fmt.Fprintf(&b, "%d\ttotal (%d files)", total, files)
	if binaries > 0 {
		fmt.Fprintf(&b, "\n[%d binary files skipped]", binaries)
	}
	if more {
		fmt.Fprintf(&b, "\n[stopped at %d files; the total covers those; narrow path or pattern]", countMaxFiles)
	}
	return tools.Cap(b.String()), nil
}

// ---- count_tokens ----

type countTokensTool struct{ env *tools.Env }

func (countTokensTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "count_tokens",
		Description: "Estimate the tokens of a file or a text (characters/4).",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},` +
			`"additionalProperties":false}`),
	}
}

func (countTokensTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "count_tokens: estimate whether a file fits before reading it.", Subjects: tools.PathField}
}

func (t countTokensTool) Run(_ context.Context, call tools.Call) (string, error) {
	var in struct {
		Path *string `json:"path"`
		Text *string `json:"text"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	var text, what string
	switch {
	case (in.Path == nil) == (in.Text == nil):
		return "", tools.Failf("give either path or text.")
	case in.Path != nil:
		f, err := readTextFile(env, *in.Path)
		if err != nil {
			return "", err
		}
		text, what = string(f.data), f.rel
	default:
		text, what = *in.Text, "the text"
	}
	chars := utf8.RuneCountInString(text)
	return fmt.Sprintf("~%d tokens in %s (an estimate: %d characters / 4; real tokenizers differ)", (chars+3)/4, what, chars), nil
}
