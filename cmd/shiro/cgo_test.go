package main

import (
	"os/exec"
	"strings"
	"testing"
)

// A package outside the standard library that uses cgo makes the linker
// link externally, and an externally linked shiro keeps about 25 MB more
// of itself resident in every process (measured at `shiro --version`:
// 68 MB against 42 MB, when the sandbox used a Landlock library that
// imports libcap's psx). The standard library's cgo (net, os/user) links
// internally and is fine.
func TestShiroLinksNoCgoOutsideTheStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if and .CgoFiles (not .Standard)}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if cgo := strings.Fields(string(out)); len(cgo) > 0 {
		t.Errorf("shiro links packages that use cgo, which forces external linking and a larger resident binary: %q", cgo)
	}
}
