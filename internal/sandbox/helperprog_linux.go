package sandbox

import (
	"os"
	"path/filepath"
)

// HelperProgram is the lean helper (cmd/shiro-sandbox) that the launcher
// prefers to shiro itself when it lies next to shiro's executable: it does
// the same work, and starting it costs a fifth of the CPU (BenchmarkHelperStart),
// which every command pays.
const HelperProgram = "shiro-sandbox"

// helperCandidates are the programs the probe tries as the helper, best
// first: the lean helper beside this executable, when there is one, then
// this program itself through the kernel's link to it (which still works
// after an upgrade replaced the file). A lean helper from another build
// fails the probe (its plan version or its answer differ), and the next
// candidate is tried.
func helperCandidates() []string {
	var out []string
	if lean, ok := leanHelperBeside(os.Executable); ok {
		out = append(out, lean)
	}
	return append(out, selfExe)
}

// leanHelperBeside finds HelperProgram in the folder of the executable
// that exe names: a regular file someone may execute.
func leanHelperBeside(exe func() (string, error)) (string, bool) {
	self, err := exe()
	if err != nil {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	path := filepath.Join(filepath.Dir(self), HelperProgram)
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	return path, true
}
