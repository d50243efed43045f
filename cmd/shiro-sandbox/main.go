// Command shiro-sandbox is the sandbox helper that shiro starts for a
// session's commands: it applies the sandbox's plan to itself, then
// supervises each command it is handed, confining a fresh thread for it.
// shiro itself can be the helper too, but a program that holds only the
// sandbox starts in a fifth of the CPU time (it initialises no provider
// SDKs, schemas or renderers), and a command beside another, or after the
// mounts changed, pays that start. shiro uses this program when it lies next
// to shiro's own executable; people never run it.
package main

import (
	"fmt"
	"os"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

func main() {
	sandbox.MaybeRunHelper()
	fmt.Fprintln(os.Stderr, "shiro-sandbox: this is the helper shiro starts to confine a command; run shiro instead")
	os.Exit(2)
}
