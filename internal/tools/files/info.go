package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/tools/search"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// countMaxFiles is how many files count_lines reports.
const countMaxFiles = 500

// fileStats are the facts file_info and count_lines read from a file.
type fileStats struct {
	lines  int
	binary bool
}

// statFile counts a regular file's lines in one streaming pass; a file
// with a NUL byte in its first BinarySniff bytes is binary and its lines
// are not counted.
func statFile(env *workspace.Env, rel string) (fileStats, error) {
	f, err := env.Open(rel)
	if err != nil {
		return fileStats{}, err
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil {
		return fileStats{}, err
	} else if !fi.Mode().IsRegular() {
		return fileStats{}, fmt.Errorf("%s is not a regular file (%s)", rel, fi.Mode().Type())
	}
	buf := make([]byte, 64*1024)
	var st fileStats
	first := true
	var last byte
	for {
		n, err := f.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if first && workspace.IsBinary(chunk) {
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

type fileInfoInput struct {
	Path string `json:"path"`
}

func fileInfoTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[fileInfoInput]{
		Info: tool.Info{
			Name:        "file_info",
			Description: "Size, line count, text or binary, and modification time of a file.",
			Guidance:    "file_info: size and line count before reading a big file.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Check: func(in *fileInfoInput) error {
			if in.Path == "" {
				return tool.Failf("path is required.")
			}
			return nil
		},
		Plan: func(in *fileInfoInput) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: fileop.Title(in.Path)}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *fileInfoInput) (tool.Result, error) {
			return tool.TextOf(fileInfo(env, in.Path))
		},
	})
}

func fileInfo(env *workspace.Env, p string) (string, error) {
	rel, fi, err := fileop.Stat(env, p)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\n", rel)
	switch {
	case fi.IsDir():
		entries, err := env.ReadDir(rel)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		fmt.Fprintf(&b, "type: directory\nentries: %d\n", len(entries))
	case fi.Mode().IsRegular():
		st, err := statFile(env, rel)
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

type countLinesInput struct {
	Path    string `json:"path,omitempty"`
	Pattern string `json:"pattern,omitempty" jsonschema:"glob, e.g. *.go"`
}

func countLinesTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[countLinesInput]{
		Info: tool.Info{
			Name:        "count_lines",
			Description: "Line counts of a file, or of the text files under a directory, optionally matching a glob.",
			Guidance:    "count_lines: how big files or a directory are, in lines.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Check: func(in *countLinesInput) error {
			_, err := search.ParseInclude(in.Pattern)
			return err
		},
		Plan: func(in *countLinesInput) tool.Plan {
			title := fileop.OrRoot(in.Path)
			if in.Pattern != "" {
				title += " " + in.Pattern
			}
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: fileop.Title(title)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *countLinesInput) (tool.Result, error) {
			return tool.TextOf(countLines(ctx, env, in))
		},
	})
}

func countLines(ctx context.Context, env *workspace.Env, in *countLinesInput) (string, error) {
	include, err := search.ParseInclude(in.Pattern)
	if err != nil {
		return "", err
	}
	rel, err := fileop.Rel(env, in.Path)
	if err != nil {
		return "", err
	}
	fi, err := env.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", tool.Failf("No such file or directory: %s", rel)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	if !fi.IsDir() {
		st, err := statFile(env, rel)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		if st.binary {
			return "", tool.Failf("%s is a binary file; it has no lines to count.", rel)
		}
		return fmt.Sprintf("%d\t%s", st.lines, rel), nil
	}
	var b strings.Builder
	files, total, binaries := 0, 0, 0
	more := false
	err = workspace.Walk(ctx, env, rel, workspace.WalkOptions{}, func(r string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !include.Match(r) {
			return nil
		}
		if files == countMaxFiles {
			more = true
			return fs.SkipAll
		}
		st, err := statFile(env, r)
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
	return tool.Cap(b.String()), nil
}

// ---- count_tokens ----

type countTokensInput struct {
	Path *string `json:"path,omitempty"`
	Text *string `json:"text,omitempty"`
}

func countTokensTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[countTokensInput]{
		Info: tool.Info{
			Name:        "count_tokens",
			Description: "Estimate the tokens of a file or a text (characters/4).",
			Guidance:    "count_tokens: estimate whether a file fits before reading it.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Check: func(in *countTokensInput) error {
			if (in.Path == nil) == (in.Text == nil) {
				return tool.Failf("give either path or text.")
			}
			return nil
		},
		Plan: func(in *countTokensInput) tool.Plan {
			if in.Path == nil {
				return tool.Plan{Subjects: fileop.PathSubjects(""), Title: fmt.Sprintf("text of %d characters", utf8.RuneCountInString(*in.Text))}
			}
			return tool.Plan{Subjects: fileop.PathSubjects(*in.Path), Title: fileop.Title(*in.Path)}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *countTokensInput) (tool.Result, error) {
			text, what := "", "the text"
			if in.Path != nil {
				f, err := fileop.ReadText(env, *in.Path)
				if err != nil {
					return tool.Result{}, err
				}
				text, what = string(f.Data), f.Rel
			} else {
				text = *in.Text
			}
			chars := utf8.RuneCountInString(text)
			return tool.Text(fmt.Sprintf("~%d tokens in %s (an estimate: %d characters / 4; real tokenizers differ)", (chars+3)/4, what, chars)), nil
		},
	})
}
