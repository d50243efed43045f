package fileop

import (
	"io"
	"io/fs"
	"os"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// snapshotMaxRead is the largest file a snapshot keeps whole. A bigger one
// is told apart by its identity, size and time alone.
const snapshotMaxRead = 4 << 20

// Snapshot is a file as a move or a delete found it, so that the call can
// tell, when it runs, whether the file is still the one it was approved
// for.
type Snapshot struct {
	// Info is what Lstat said of the file.
	Info    fs.FileInfo
	content string
	read    bool
}

// TakeSnapshot records the regular file at rel, which fi (from Lstat)
// describes.
func TakeSnapshot(env *workspace.Env, rel string, fi fs.FileInfo) (Snapshot, error) {
	s := Snapshot{Info: fi}
	if fi.Size() > snapshotMaxRead {
		return s, nil
	}
	content, ok, err := readSmall(env, rel)
	if err != nil {
		return s, err
	}
	s.content, s.read = content, ok
	return s, nil
}

// SnapshotOf records a regular file, described by fi, whose content the
// caller has already read whole.
func SnapshotOf(fi fs.FileInfo, content string) Snapshot {
	return Snapshot{Info: fi, content: content, read: true}
}

// readSmall reads a regular file of at most snapshotMaxRead bytes; ok is
// false for anything else.
func readSmall(env *workspace.Env, rel string) (string, bool, error) {
	f, err := env.Open(rel)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false, err
	}
	b, err := io.ReadAll(io.LimitReader(f, snapshotMaxRead+1))
	if err != nil || len(b) > snapshotMaxRead {
		return "", false, err
	}
	return string(b), true, nil
}

// Still reports whether rel is the same file, with the same content.
func (s Snapshot) Still(env *workspace.Env, rel string) bool {
	fi, err := env.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, s.Info) ||
		fi.Size() != s.Info.Size() || !fi.ModTime().Equal(s.Info.ModTime()) {
		return false
	}
	if !s.read {
		return true
	}
	content, ok, err := readSmall(env, rel)
	return err == nil && ok && content == s.content
}

// Text is the file's content when it is text small enough to show.
func (s Snapshot) Text() (string, bool) {
	if !s.read || workspace.IsBinary([]byte(s.content)) {
		return "", false
	}
	return s.content, true
}

// GoneDiff shows the file's removal: its text going, or only the header
// when the file is binary or too big to show.
func (s Snapshot) GoneDiff(rel string) *protocol.Diff {
	text, ok := s.Text()
	if ok && text != "" {
		return tool.FileDiff(rel, text, "")
	}
	return &protocol.Diff{Path: rel, Unified: "--- a/" + rel + "\n+++ /dev/null\n", Truncated: !ok}
}
