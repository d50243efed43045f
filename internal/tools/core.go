package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// FileTools returns the workspace file tools: read_file, read_many_files,
// write_file, edit_file, multi_edit, list_dir, glob and grep. env is the
// workspace they use when a call carries no Env of its own.
func FileTools(env *Env) []Tool {
	return []Tool{
		readFileTool{env: env},
		readManyTool{env: env},
		writeFileTool{env: env},
		editFileTool{env: env},
		multiEditTool{env: env},
		listDirTool{env: env},
		globTool{env: env},
		grepTool{env: env},
	}
}

// callEnv picks the environment of a call, falling back to the tool's own.
func callEnv(call Call, own *Env) (*Env, error) {
	if call.Env != nil {
		return call.Env, nil
	}
	if own != nil {
		return own, nil
	}
	return nil, errors.New("no workspace is set for this tool call")
}

// userError is an error whose text is written for the model to act on. It
// exists so messages can read as sentences ("No such file: a.go") without
// tripping the lint rule for Go error strings, which is about wrapped
// library errors, not tool results.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func failf(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...)}
}

// pathField decodes the "path" argument for subjects and writes. An absent
// path means the workspace root, which is how list_dir reads it.
func pathField(input json.RawMessage) []string {
	var in struct {
		Path *string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	if in.Path == nil || *in.Path == "" {
		return []string{"."}
	}
	return []string{*in.Path}
}

// patternField decodes the "pattern" argument of glob and grep.
func patternField(input json.RawMessage) []string {
	var in struct {
		Pattern string `json:"pattern"`
	}
	if json.Unmarshal(input, &in) != nil || in.Pattern == "" {
		return nil
	}
	return []string{in.Pattern}
}

// statInJail resolves p in the jail and stats it, turning the common
// failures into messages the model can act on.
func statInJail(env *Env, p string) (abs string, fi fs.FileInfo, err error) {
	abs, err = env.Resolve(p)
	if err != nil {
		return "", nil, err
	}
	fi, err = os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, nil, failf("No such file: %s", displayPath(env, p, abs))
	}
	if err != nil {
		return abs, nil, fmt.Errorf("%s: %w", displayPath(env, p, abs), err)
	}
	return abs, fi, nil
}

// displayPath is how a path appears in results: relative to the workspace
// when it is inside it (it always is after Resolve), else as given.
func displayPath(env *Env, given, abs string) string {
	if abs == "" {
		return given
	}
	return env.Rel(abs)
}
