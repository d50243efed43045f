//go:build !linux

package bash

import (
	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// direct leaves every command to the shell here: running a program in
// bash's place is done on Linux only, where the sandbox's helper can give
// it the name it was called by (sandbox-exec cannot).
func direct(_ *workspace.Env, _ string, spec proc.Spec) (proc.Spec, bool) { return spec, false }
