// Command shiro is a terminal coding agent.
package main

import (
	"os"

	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

func main() {
	// A re-executed shiro that confines one command for the sandbox
	// never gets further.
	sandbox.MaybeRunHelper()
	os.Exit(cli.Main(os.Args[1:]))
}
