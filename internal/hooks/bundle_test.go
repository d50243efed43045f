//go:build unix

package hooks

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// The digest follows the documented encoding exactly, with files in path
// order ("a-c" sorts before "a/b", unlike a directory walk).
func TestBundleDigestEncoding(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string, perm os.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
	}
	write("run", "#!/bin/sh\n", 0o755)
	write("a/b", "B", 0o644)
	write("a-c", "C", 0o600)

	b, err := scanBundle(dir, "/the/identity", nil)
	if err != nil {
		t.Fatal(err)
	}

	var enc []byte
	field := func(x []byte) {
		enc = binary.BigEndian.AppendUint64(enc, uint64(len(x)))
		enc = append(enc, x...)
	}
	file := func(rel, content string, perm uint32) {
		sum := sha256.Sum256([]byte(content))
		field([]byte(rel))
		field(binary.BigEndian.AppendUint32(nil, perm))
		field(sum[:])
	}
	field([]byte("shiro-hook-v1"))
	field([]byte("/the/identity"))
	enc = binary.BigEndian.AppendUint64(enc, 3)
	file("a-c", "C", 0o600)
	file("a/b", "B", 0o644)
	file("run", "#!/bin/sh\n", 0o755)
	want := sha256.Sum256(enc)

	if b.digest != hex.EncodeToString(want[:]) {
		t.Errorf("digest %s, want %s", b.digest, hex.EncodeToString(want[:]))
	}

	// Mode bits and the identity are covered too.
	if err := os.Chmod(filepath.Join(dir, "a-c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, _ := scanBundle(dir, "/the/identity", nil); again.digest == b.digest {
		t.Error("a mode change kept the digest")
	}
	if other, _ := scanBundle(dir, "/another/identity", nil); other.digest == b.digest {
		t.Error("another folder gave the same digest")
	}
}
