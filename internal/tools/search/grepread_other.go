//go:build !unix

package search

import (
	"bytes"
	"io"
	"os"
)

// readForGrep reads the file at path into buf (reused across files). ok is
// false for files that cannot be read or are larger than limit.
func readForGrep(path string, buf []byte, limit int) (data []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return buf, false
	}
	defer func() { _ = f.Close() }()
	b := bytes.NewBuffer(buf[:0])
	n, err := b.ReadFrom(io.LimitReader(f, int64(limit)+1))
	if err != nil || n > int64(limit) {
		return b.Bytes()[:0], false
	}
	return b.Bytes(), true
}
