//go:build !unix

package fsutil

import "io/fs"

// Lock cannot lock here: two processes updating one state file at the same
// instant may lose one change, which only means asking again.
func Lock(string) (func(), error) { return func() {}, nil }

// CheckPrivate has no owner to compare on this system.
func CheckPrivate(string, fs.FileInfo) error { return nil }
