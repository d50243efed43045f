package tooltest

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
)

// initChildVar marks the copy of a test binary NoInitWork starts.
const initChildVar = "SHIRO_TOOLTEST_INITTRACE_CHILD"

// NoInitWork fails the test if the package pkg (an import path) does work
// when it is loaded: every shiro start, even `shiro --version`, would pay
// for it. It runs the test again in a copy of this very test binary with
// the runtime's init trace on, which lists only the packages with init
// work. Test files count too: their package-level variables must need no
// code to set up.
func NoInitWork(t *testing.T, pkg string) {
	t.Helper()
	if os.Getenv(initChildVar) == "1" {
		return
	}
	var mu sync.Mutex
	var b strings.Builder
	res, err := proc.Run(t.Context(), proc.Spec{
		Argv: []string{os.Args[0], "-test.run=^" + t.Name() + "$"},
		Env:  append(os.Environ(), "GODEBUG=inittrace=1", initChildVar+"=1"),
		Stdout: proc.Stream(func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			b.Write(p)
		}),
		Stderr: proc.SameAsStdout{},
	})
	out := b.String()
	if err != nil || !res.Exit.Success() {
		t.Fatalf("%v %+v\n%s", err, res.Exit, out)
	}
	if !strings.Contains(out, "init runtime @") {
		t.Skip("this runtime prints no init trace")
	}
	// A range over strings.Lines would run the body in a closure, which
	// t.Helper does not cover.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "init "+pkg+" @") {
			t.Errorf("the package does work at init: %s", line)
		}
	}
}
