package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"syscall"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// ---- move_file ----

type moveFileInput struct {
	From string `json:"from" jsonschema:"The file to move"`
	To   string `json:"to" jsonschema:"Its new path; must not exist yet (directories are created)"`

	planned *movePlan
}

// movePlan is a move checked against the workspace: both ends resolved,
// and the file as it was then.
type movePlan struct {
	from, to string
	file     fileop.Snapshot
}

func moveFileTool(env *workspace.Env) tool.Tool {
	plan := func(in *moveFileInput) (*movePlan, error) {
		return fileop.Planned(&in.planned, func() (*movePlan, error) { return planMove(env, in.From, in.To) })
	}
	return tool.New(tool.Def[moveFileInput]{
		Info: tool.Info{
			Name:        "move_file",
			Description: "Move or rename one file. The target must not exist; its directory is created.",
			Guidance:    "move_file: move or rename one file (never onto an existing one).",
			Set:         tool.SetEditPlus,
			Effect:      tool.Writes,
			Kind:        protocol.KindMove,
			Subject:     tool.PathSubject,
		},
		Check: func(in *moveFileInput) error {
			if in.From == "" || in.To == "" {
				return tool.Failf("move_file needs both from and to")
			}
			return nil
		},
		Plan: func(in *moveFileInput) tool.Plan {
			ends := []string{in.From, in.To}
			return tool.Plan{Subjects: ends, Writes: slices.Clone(ends), Title: fileop.Title(in.From + " -> " + in.To)}
		},
		Preview: func(_ context.Context, in *moveFileInput) (*protocol.Diff, error) {
			p, err := plan(in)
			if err != nil {
				return nil, err
			}
			return p.diff(), nil
		},
		Run: func(_ context.Context, _ tool.Runtime, in *moveFileInput) (tool.Result, error) {
			p, err := plan(in)
			if err != nil {
				return tool.Result{}, err
			}
			if err := p.apply(env); err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Output: fmt.Sprintf("Moved %s -> %s", p.from, p.to), Diff: p.diff()}, nil
		},
	})
}

func planMove(env *workspace.Env, from, to string) (*movePlan, error) {
	src, fi, err := fileop.RegularEntry(env, from, "move_file moves")
	if err != nil {
		return nil, err
	}
	dst, err := fileop.ResolveNew(env, to)
	if err != nil {
		return nil, err
	}
	if dst == src {
		return nil, tool.Failf("%s and %s are the same file; nothing to move", from, to)
	}
	if err := refuseExisting(env, dst); err != nil {
		return nil, err
	}
	if err := fileop.CheckParentDirs(env, dst); err != nil {
		return nil, err
	}
	snap, err := fileop.TakeSnapshot(env, src, fi)
	if err != nil {
		return nil, err
	}
	return &movePlan{from: src, to: dst, file: snap}, nil
}

// refuseExisting refuses a move onto a path that holds anything.
func refuseExisting(env *workspace.Env, dst string) error {
	if _, err := env.Lstat(dst); err == nil {
		return tool.Failf("%s already exists; move_file never replaces a file (delete it first, or pick another name)", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dst, err)
	}
	return nil
}

// diff shows a move as a diff from the old name to the new one; the
// content travels unchanged.
func (p *movePlan) diff() *protocol.Diff {
	d := &protocol.Diff{Path: p.to, Unified: "--- a/" + p.from + "\n+++ b/" + p.to + "\n"}
	if text, ok := p.file.Text(); ok {
		d.Before, d.After = text, text
	} else {
		d.Truncated = true
	}
	return d
}

// apply moves the file if it is still the one the plan was made for and
// the target is still free.
func (p *movePlan) apply(env *workspace.Env) error {
	if !p.file.Still(env, p.from) {
		return fileop.Stale(p.from)
	}
	if err := refuseExisting(env, p.to); err != nil {
		return err
	}
	if err := env.MkdirAll(path.Dir(p.to), 0o755); err != nil {
		return fmt.Errorf("create the directory of %s: %w", p.to, err)
	}
	if err := moveFile(env, p.from, p.to, p.file.Info.Mode().Perm()); err != nil {
		return fmt.Errorf("move %s to %s: %w", p.from, p.to, err)
	}
	return nil
}

// moveFile renames src to dst. Across file systems (a mount inside the
// workspace), where a rename cannot work, it writes a copy atomically and
// then removes the original.
func moveFile(env *workspace.Env, src, dst string, perm fs.FileMode) error {
	err := env.Rename(src, dst)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	data, err := env.ReadFile(src)
	if err != nil {
		return err
	}
	if err := env.WriteFile(dst, data, perm); err != nil {
		return err
	}
	if err := env.Remove(src); err != nil {
		_ = env.Remove(dst) // keep one copy, the original
		return err
	}
	return nil
}

// ---- delete_file ----

type deleteFileInput struct {
	Path string `json:"path" jsonschema:"The file to delete"`

	planned *deletePlan
}

type deletePlan struct {
	rel  string
	file fileop.Snapshot
}

func deleteFileTool(env *workspace.Env) tool.Tool {
	plan := func(in *deleteFileInput) (*deletePlan, error) {
		return fileop.Planned(&in.planned, func() (*deletePlan, error) {
			rel, fi, err := fileop.RegularEntry(env, in.Path, "delete_file deletes")
			if err != nil {
				return nil, err
			}
			snap, err := fileop.TakeSnapshot(env, rel, fi)
			if err != nil {
				return nil, err
			}
			return &deletePlan{rel: rel, file: snap}, nil
		})
	}
	return tool.New(tool.Def[deleteFileInput]{
		Info: tool.Info{
			Name:        "delete_file",
			Description: "Delete one file (not a directory).",
			Guidance:    "delete_file: delete one file.",
			Set:         tool.SetEditPlus,
			Effect:      tool.Writes,
			Kind:        protocol.KindDelete,
			Subject:     tool.PathSubject,
		},
		Plan: func(in *deleteFileInput) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Writes: fileop.PathSubjects(in.Path), Title: fileop.Title(in.Path)}
		},
		Preview: func(_ context.Context, in *deleteFileInput) (*protocol.Diff, error) {
			p, err := plan(in)
			if err != nil {
				return nil, err
			}
			return p.file.GoneDiff(p.rel), nil
		},
		Run: func(_ context.Context, _ tool.Runtime, in *deleteFileInput) (tool.Result, error) {
			p, err := plan(in)
			if err != nil {
				return tool.Result{}, err
			}
			if !p.file.Still(env, p.rel) {
				return tool.Result{}, fileop.Stale(p.rel)
			}
			if err := env.Remove(p.rel); err != nil {
				return tool.Result{}, fmt.Errorf("delete %s: %w", p.rel, err)
			}
			out := fmt.Sprintf("Deleted %s (%d bytes)", p.rel, p.file.Info.Size())
			return tool.Result{Output: out, Diff: p.file.GoneDiff(p.rel)}, nil
		},
	})
}
