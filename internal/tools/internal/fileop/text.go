package fileop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// MaxTextFile is the largest file the text tools read whole.
const MaxTextFile = 16 << 20

// TextFile is a workspace file read whole for a text tool.
type TextFile struct {
	// Rel is its path from the workspace root.
	Rel  string
	Info fs.FileInfo
	Data []byte
}

// ReadText resolves p through the jail and reads it, refusing what is not
// a regular text file of at most MaxTextFile bytes.
func ReadText(env *workspace.Env, p string) (TextFile, error) {
	if p == "" {
		return TextFile{}, tool.Failf("path is required.")
	}
	f, file, err := Open(env, p)
	if err != nil {
		return TextFile{}, err
	}
	defer func() { _ = f.Close() }()
	switch {
	case file.Info.IsDir():
		return file, tool.Failf("%s is a directory, not a file.", file.Rel)
	case !file.Info.Mode().IsRegular():
		return file, tool.Failf("%s is not a regular file (%s).", file.Rel, file.Info.Mode().Type())
	case file.Info.Size() > MaxTextFile:
		return file, tool.Failf("%s is %d bytes; files over %d MB are not read by this tool.", file.Rel, file.Info.Size(), MaxTextFile>>20)
	}
	file.Data, err = io.ReadAll(io.LimitReader(f, MaxTextFile+1))
	if err != nil {
		return file, fmt.Errorf("read %s: %w", file.Rel, err)
	}
	if len(file.Data) > MaxTextFile {
		return file, tool.Failf("%s grew past %d MB while it was read; it is not read by this tool.", file.Rel, MaxTextFile>>20)
	}
	if workspace.IsBinary(file.Data) {
		return file, tool.Failf("%s is a binary file, not text.", file.Rel)
	}
	return file, nil
}

// Open resolves p through the jail and opens what is there for reading,
// with its description taken from the open file itself (so the checks a
// caller makes are about the file it reads). A FIFO opens without waiting;
// callers refuse what is not a regular file before reading.
func Open(env *workspace.Env, p string) (*os.File, TextFile, error) {
	rel, err := Rel(env, p)
	if err != nil {
		return nil, TextFile{}, err
	}
	f, err := env.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, TextFile{Rel: rel}, &missingError{rel: rel}
	}
	if err != nil {
		return nil, TextFile{Rel: rel}, fmt.Errorf("%s: %w", rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, TextFile{Rel: rel}, fmt.Errorf("%s: %w", rel, err)
	}
	return f, TextFile{Rel: rel, Info: fi}, nil
}

// missingError refuses a path where there is nothing. It is
// fs.ErrNotExist, so a caller can say what to do instead.
type missingError struct{ rel string }

func (e *missingError) Error() string        { return "No such file: " + e.rel }
func (e *missingError) Is(target error) bool { return target == fs.ErrNotExist }
