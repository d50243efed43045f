//go:build !unix

package cli

import (
	"os"
	"os/exec"
)

// replaceProcess runs the program at path on this process's streams and
// waits for it: a process cannot be replaced here. Its exit status comes
// back as an *exec.ExitError.
func replaceProcess(path string, argv, env []string) error {
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	return cmd.Run()
}
