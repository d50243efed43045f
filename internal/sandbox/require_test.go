package sandbox

import (
	"os"
	"testing"
)

// requireVar, set (CI sets it), turns the skip of a test that needs what
// the sandbox uses (Landlock, seccomp, private mounts, a tool such as
// unshare) into a failure: on the machines shiro promises to confine, a
// confinement test that does not run is a confinement nobody checked, and
// a skip is easy to miss among passes.
const requireVar = "SHIRO_REQUIRE_SANDBOX"

// needSandbox skips t for why, or fails it when requireVar is set.
func needSandbox(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(requireVar) != "" {
		t.Fatalf("%s is set, but this test cannot run: %s", requireVar, why)
	}
	t.Skip(why)
}

// NeedSandbox is needSandbox for the sandbox_test package.
var NeedSandbox = needSandbox
