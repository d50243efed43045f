package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// peakRSSMain is the test binary run as "peakrss CMD ARGS...": it runs
// the command with its own standard streams and writes the command's peak
// RSS in KiB as the last line of its standard error. It exists because Go
// starts a child with vfork, and at exec the kernel folds the high-water
// RSS of the memory the child shared (the parent's) into the child's
// maxrss: a test process that has grown past the binary's own peak is
// what would be measured. Started from this small process, the child
// inherits only its start-up footprint, well under any figure measured.
func peakRSSMain() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "\n%s%d\n", peakRSSPrefix, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	os.Exit(cmd.ProcessState.ExitCode())
}

const peakRSSPrefix = "peakrss KiB: "
