// Command shiro is a terminal coding agent.
package main

import (
	"os"

	"github.com/shiro-neko/shiro/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
