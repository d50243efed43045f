//go:build unix

package cli

import "syscall"

// replaceProcess runs the program at path in place of this process: the
// terminal, the process id and the exit status become the new program's,
// so nothing of shiro is left in between. It returns only on failure.
func replaceProcess(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
