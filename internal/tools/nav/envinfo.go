package nav

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// versionTimeout bounds each `--version` run of env_info.
const versionTimeout = 3 * time.Second

// probe is one program env_info asks for its version.
type probe struct {
	program string
	args    []string
}

func probes() []probe {
	return []probe{
		{"go", []string{"version"}},
		{"node", []string{"--version"}},
		{"python3", []string{"--version"}},
		{"git", []string{"--version"}},
		{"rg", []string{"--version"}},
	}
}

type envInfoInput struct{}

func envInfoTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[envInfoInput]{
		Info: tool.Info{
			Name:        "env_info",
			Description: "Platform, workspace, and versions of go, node, python3, git and rg.",
			Guidance:    "env_info: which toolchains are installed.",
			Set:         tool.SetExtra,
			// It runs programs, but only the fixed `--version` probes
			// above, with nothing the model chooses: it reads the machine.
			Effect:  tool.Reads,
			Kind:    protocol.KindRead,
			Subject: tool.NoSubject,
		},
		Run: func(ctx context.Context, _ tool.Runtime, _ *envInfoInput) (tool.Result, error) {
			return tool.Text(envInfo(ctx, env)), nil
		},
	})
}

func envInfo(ctx context.Context, env *workspace.Env) string {
	ps := probes()
	versions := make([]string, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { versions[i] = version(ctx, env, p) })
	}
	wg.Wait()
	var b strings.Builder
	fmt.Fprintf(&b, "platform: %s/%s\nworkspace: %s\nshell: %s\n", runtime.GOOS, runtime.GOARCH, env.Root, shellOf(env))
	for i, p := range ps {
		fmt.Fprintf(&b, "%s: %s\n", p.program, versions[i])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// version runs one probe and returns the first line it printed.
func version(ctx context.Context, env *workspace.Env, p probe) string {
	bin, err := exec.LookPath(p.program)
	if err != nil {
		return "not found"
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, p.args...)
	cmd.Dir = env.Root
	// GOTOOLCHAIN=local: a go.mod asking for a newer Go must not make
	// `go version` download one.
	cmd.Env = append(env.CommandEnviron(), "GOTOOLCHAIN=local")
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	switch {
	case ctx.Err() != nil:
		return fmt.Sprintf("no answer within %s (%s)", versionTimeout, bin)
	case err != nil:
		return fmt.Sprintf("error: %v %s", err, cut(first, 120))
	}
	return cut(strings.TrimSpace(first), 120)
}

func shellOf(env *workspace.Env) string {
	if env.Shell == "" {
		return "bash"
	}
	return env.Shell
}
