package main

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// homeOutsideCmd is the script command `homeoutside`: it makes a home
// folder outside the temp dir (in /var/tmp) and sets HOME to it, as on a
// developer's machine. A home in the script's work folder lies in /tmp,
// which commands see as a private folder of their own, so a write there
// would neither be refused nor reach the real folder. The folder is
// removed when the script ends.
func homeOutsideCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: homeoutside")
	}
	dir, err := os.MkdirTemp("/var/tmp", "shiro-script-home-")
	ts.Check(err)
	ts.Defer(func() { _ = os.RemoveAll(dir) })
	ts.Setenv("HOME", dir)
}

// goCacheCmd is the script command `gocache`: it sets GOCACHE to the Go
// build cache of whoever runs the tests (the one the go command in their
// environment uses), so that a script's `go test` finds the standard
// library built already rather than building it again under the
// sandbox. Read before homeoutside moves HOME.
func goCacheCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: gocache")
	}
	dir := os.Getenv("GOCACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		ts.Check(err)
		dir = filepath.Join(cache, "go-build")
	}
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Setenv("GOCACHE", dir)
}
