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

// CallEnv picks the environment of a call, falling back to the tool's own.
func CallEnv(call Call, own *Env) (*Env, error) {
	if call.Env != nil {
		return call.Env, nil
	}
	if own != nil {
		return own, nil
	}
	return nil, errors.New("no workspace is set for this tool call")
}

// Begin is how a tool's Run starts: it picks the call's environment (see
// CallEnv), then decodes the call's input into in (see Decode).
func Begin(call Call, own *Env, in any) (*Env, error) {
	env, err := CallEnv(call, own)
	if err != nil {
		return nil, err
	}
	if err := Decode(call, in); err != nil {
		return nil, err
	}
	return env, nil
}

// IntArg checks an optional integer argument: def when it is absent, else
// a value from lo to hi.
func IntArg(name string, v *int, def, lo, hi int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < lo || *v > hi {
		return 0, Failf("%s must be from %d to %d; got %d", name, lo, hi, *v)
	}
	return *v, nil
}

// userError is an error whose text is written for the model to act on. It
// exists so messages can read as sentences ("No such file: a.go") without
// tripping the lint rule for Go error strings, which is about wrapped
// library errors, not tool results.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

// Failf returns a userError: a sentence for the model, such as
// "No such file: a.go". Every tool package reports bad calls with it.
func Failf(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...)}
}

// PathField decodes the "path" argument for subjects and writes. An absent
// path means the workspace root, which is how list_dir reads it.
func PathField(input json.RawMessage) []string {
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

// StatInJail resolves p in the jail and stats it, turning the common
// failures into messages the model can act on.
func StatInJail(env *Env, p string) (abs string, fi fs.FileInfo, err error) {
	abs, err = env.Resolve(p)
	if err != nil {
		return "", nil, err
	}
	fi, err = os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, nil, Failf("No such file: %s", displayPath(env, p, abs))
	}
	if err != nil {
		return abs, nil, fmt.Errorf("%s: %w", displayPath(env, p, abs), err)
	}
	return abs, fi, nil
}

// ResolveDir resolves p in the jail and requires a directory there,
// returning its absolute path and its path from the root. fileHint ends the
// refusal when p is a file: "X is a file, not a directory" + fileHint.
func ResolveDir(env *Env, p, fileHint string) (abs, rel string, err error) {
	abs, err = env.Resolve(p)
	if err != nil {
		return "", "", err
	}
	rel = env.Rel(abs)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "", Failf("No such directory: %s", rel)
	case err != nil:
		return "", "", fmt.Errorf("%s: %w", rel, err)
	case !fi.IsDir():
		return "", "", Failf("%s is a file, not a directory%s", rel, fileHint)
	}
	return abs, rel, nil
}

// displayPath is how a path appears in results: relative to the workspace
// when it is inside it (it always is after Resolve), else as given.
func displayPath(env *Env, given, abs string) string {
	if abs == "" {
		return given
	}
	return env.Rel(abs)
}
