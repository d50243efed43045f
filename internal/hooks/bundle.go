package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// digestTag starts every digest, so a digest of this encoding can never be
// confused with the digest of anything else.
const digestTag = "shiro-hook-v1"

// bundleFile is one file of a hook folder as hashed.
type bundleFile struct {
	rel  string      // slash-separated path inside the folder
	perm fs.FileMode // permission bits (of the target, for a symlink)
	sum  [sha256.Size]byte
}

// bundle is a hashed hook folder.
type bundle struct {
	digest   string
	files    []bundleFile
	manifest []byte // manifest.json exactly as hashed; nil when absent
	run      *bundleFile
}

// locatedError is a problem with one file or folder.
type locatedError struct {
	Path string
	Msg  string
}

func (e *locatedError) Error() string { return e.Path + ": " + e.Msg }

// copyTarget receives the bytes of each file as they are hashed, so a copy
// made during the scan holds exactly what the digest covers.
type copyTarget func(rel string, perm fs.FileMode) (io.WriteCloser, error)

// scanBundle hashes every file under dir. identity, the hook's canonical
// folder path, is bound into the digest: the same bytes in another folder
// (another project) are a different hook and need their own approval.
//
// Through os.Root, a symlink is followed only while it stays inside dir; a
// symlink to a file inside counts as that file. Symlinks to folders,
// symlinks leading out, special files, and bundles over the size limits
// are refused: the digest must cover everything the hook can read of its
// own folder.
//
// A hook in the original's flat layout (flat.go) has the path of its
// executable in place of a folder: its bundle is that file as `run` and
// `<name>.json` beside it as manifest.json, so it hashes, copies and runs
// like the folder holding those two files.
func scanBundle(dir, identity string, copyTo copyTarget) (bundle, error) {
	flat := isFlat(dir)
	rootDir := dir
	if flat {
		rootDir = filepath.Dir(dir)
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return bundle{}, &locatedError{Path: dir, Msg: fmt.Sprintf("cannot open the hook folder (%v)", unwrapPathError(err))}
	}
	defer root.Close()
	s := &scan{root: root, dir: rootDir, copyTo: copyTo, buf: make([]byte, 16<<10)}
	if flat {
		err = s.flatPair(filepath.Base(dir))
	} else {
		err = fs.WalkDir(root.FS(), ".", s.visit)
	}
	if err != nil {
		return bundle{}, err
	}
	slices.SortFunc(s.files, func(a, b bundleFile) int { return strings.Compare(a.rel, b.rel) })
	b := bundle{digest: bundleDigest(identity, s.files), files: s.files, manifest: s.manifest}
	for i := range b.files {
		if b.files[i].rel == runFile {
			b.run = &b.files[i]
		}
	}
	return b, nil
}

type scan struct {
	root     *os.Root
	dir      string
	copyTo   copyTarget
	files    []bundleFile
	total    int64
	manifest []byte
	buf      []byte // one copy buffer for the whole scan
}

func (s *scan) visit(rel string, d fs.DirEntry, walkErr error) error {
	if walkErr != nil {
		return s.fail(rel, "cannot be read (%v)", unwrapPathError(walkErr))
	}
	if rel == "." || d.IsDir() {
		return nil
	}
	if d.Type()&fs.ModeSymlink != 0 {
		target, err := s.root.Stat(rel)
		switch {
		case err != nil:
			return s.fail(rel, "is a symlink that is absolute, dangling or leads outside the hook folder; a hook must be self-contained, so copy the file into the folder")
		case target.IsDir():
			return s.fail(rel, "is a symlink to a folder; replace it with the folder itself")
		case !target.Mode().IsRegular():
			return s.fail(rel, "is a symlink to a special file; remove it")
		}
	} else if !d.Type().IsRegular() {
		return s.fail(rel, "is a special file (device, pipe or socket); remove it from the hook folder")
	}
	if len(s.files) == maxBundleFiles {
		return s.fail(".", "holds more than %d files; keep only what the hook needs in its folder", maxBundleFiles)
	}
	return s.hashFile(rel, rel)
}

// hashFile hashes the file name (inside the root) as the bundle's file
// rel: the same path, but for a flat hook's two files.
func (s *scan) hashFile(name, rel string) error {
	// O_NONBLOCK: if the file was swapped for a FIFO since the walk saw
	// it, opening must not hang; fstat below refuses it anyway.
	f, err := s.root.OpenFile(name, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return s.fail(name, "cannot be opened (%v)", unwrapPathError(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return s.fail(name, "is not a regular file; remove it from the hook folder")
	}
	h := sha256.New()
	var w io.Writer = h
	var manifest *bytes.Buffer
	if rel == manifestFile {
		manifest = &bytes.Buffer{}
		w = io.MultiWriter(w, manifest)
	}
	var out io.WriteCloser
	if s.copyTo != nil {
		if out, err = s.copyTo(rel, info.Mode().Perm()); err != nil {
			return err
		}
		defer out.Close()
		w = io.MultiWriter(w, out)
	}
	n, err := io.CopyBuffer(w, io.LimitReader(f, maxBundleBytes-s.total+1), s.buf)
	if err != nil {
		return s.fail(name, "cannot be read or copied (%v)", unwrapPathError(err))
	}
	if s.total += n; s.total > maxBundleBytes {
		return s.fail(".", "is larger than %d MiB; keep only what the hook needs in its folder", maxBundleBytes>>20)
	}
	if out != nil {
		if err := out.Close(); err != nil {
			return fmt.Errorf("copying %s: %w", rel, err)
		}
	}
	if manifest != nil {
		s.manifest = manifest.Bytes()
	}
	file := bundleFile{rel: rel, perm: info.Mode().Perm()}
	h.Sum(file.sum[:0])
	s.files = append(s.files, file)
	return nil
}

func (s *scan) fail(rel, format string, args ...any) error {
	return &locatedError{Path: filepath.Join(s.dir, filepath.FromSlash(rel)), Msg: fmt.Sprintf(format, args...)}
}

// bundleDigest is sha256 over a length-prefixed encoding, so no two
// different bundles can encode to the same bytes:
//
//	field(tag) field(identity) u64(count) then, per file sorted by path:
//	field(rel) field(u32 perm) field(sha256(content))
//
// where field(x) is u64(len(x)) followed by x, integers big-endian.
func bundleDigest(identity string, files []bundleFile) string {
	h := sha256.New()
	writeField(h, []byte(digestTag))
	writeField(h, []byte(identity))
	writeUint64(h, uint64(len(files)))
	for _, f := range files {
		writeField(h, []byte(f.rel))
		writeField(h, binary.BigEndian.AppendUint32(nil, uint32(f.perm)))
		writeField(h, f.sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, b []byte) {
	writeUint64(h, uint64(len(b)))
	h.Write(b)
}

func writeUint64(h hash.Hash, n uint64) {
	h.Write(binary.BigEndian.AppendUint64(nil, n))
}

// unwrapPathError drops the *PathError wrapper, whose path the messages
// already name.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
