package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/shiro-neko/shiro/internal/llm"
)

// ---- move_file ----

type moveFileTool struct{ env *Env }

const moveFileSchema = `{"type":"object","properties":{` +
	`"from":{"type":"string","description":"The file to move"},` +
	`"to":{"type":"string","description":"Its new path; must not exist yet (directories are created)"}},` +
	`"required":["from","to"],"additionalProperties":false}`

func (moveFileTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "move_file",
		Description: "Move or rename one file. The target must not exist; its directory is created.",
		Schema:      json.RawMessage(moveFileSchema),
	}
}

func (moveFileTool) Meta() Meta {
	return Meta{
		Set:      SetEditPlus,
		Mutating: true,
		Guidance: "move_file: move or rename one file (never onto an existing one).",
		Subjects: moveEnds,
		Writes:   moveEnds,
	}
}

// moveEnds gives both ends of a move: rules and write guards judge each.
func moveEnds(input json.RawMessage) []string {
	var in struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var ends []string
	for _, p := range []string{in.From, in.To} {
		if p != "" {
			ends = append(ends, p)
		}
	}
	return ends
}

func (t moveFileTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.From == "" || in.To == "" {
		return "", Failf("move_file needs both from and to")
	}
	src, fi, err := regularEntry(env, in.From, "move_file moves")
	if err != nil {
		return "", err
	}
	dst, err := resolveNew(env, in.To)
	if err != nil {
		return "", err
	}
	from, to := env.Rel(src), env.Rel(dst)
	if dst == src {
		return "", Failf("%s and %s are the same file; nothing to move", in.From, in.To)
	}
	if _, err := os.Lstat(dst); err == nil {
		return "", Failf("%s already exists; move_file never replaces a file (delete it first, or pick another name)", to)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", to, err)
	}
	if err := checkParentDirs(env, dst); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("create the directory of %s: %w", to, err)
	}
	if err := moveFile(src, dst, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("move %s to %s: %w", from, to, err)
	}
	return fmt.Sprintf("Moved %s -> %s", from, to), nil
}

// moveFile renames src to dst. Across filesystems (a mount inside the
// workspace), where a rename cannot work, it writes a copy atomically and
// then removes the original.
func moveFile(src, dst string, perm fs.FileMode) error {
	err := os.Rename(src, dst)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(dst, data, perm); err != nil {
		return err
	}
	if err := os.Remove(src); err != nil {
		_ = os.Remove(dst) // keep one copy, the original
		return err
	}
	return nil
}

// ---- delete_file ----

type deleteFileTool struct{ env *Env }

const deleteFileSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"The file to delete"}},` +
	`"required":["path"],"additionalProperties":false}`

func (deleteFileTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "delete_file",
		Description: "Delete one file (not a directory).",
		Schema:      json.RawMessage(deleteFileSchema),
	}
}

func (deleteFileTool) Meta() Meta {
	return Meta{
		Set:      SetEditPlus,
		Mutating: true,
		Guidance: "delete_file: delete one file.",
		Subjects: PathField,
		Writes:   PathField,
	}
}

func (t deleteFileTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		Path string `json:"path"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	abs, fi, err := regularEntry(env, in.Path, "delete_file deletes")
	if err != nil {
		return "", err
	}
	disp := env.Rel(abs)
	if err := os.Remove(abs); err != nil {
		return "", fmt.Errorf("delete %s: %w", disp, err)
	}
	return fmt.Sprintf("Deleted %s (%d bytes)", disp, fi.Size()), nil
}
