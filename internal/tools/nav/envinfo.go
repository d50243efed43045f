package nav

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/prose"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// versionTimeout bounds each `--version` run of env_info; a probe that
// overruns gets versionGrace between SIGTERM and SIGKILL.
const (
	versionTimeout = 3 * time.Second
	versionGrace   = 500 * time.Millisecond
)

// firstLineKeep is how much of a probe's output is kept.
const firstLineKeep = 4096

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

// version runs one probe and returns the first line it printed. The
// program is whichever PATH names, and PATH may name a folder of the
// workspace (node_modules/.bin, a venv's bin), so it runs as the model's
// commands do: through the workspace's Launcher (the sandbox), with the
// scrubbed command environment, stopped as a whole at versionTimeout.
func version(ctx context.Context, env *workspace.Env, p probe) string {
	bin, err := exec.LookPath(p.program)
	if err != nil {
		return "not found"
	}
	out := &firstLine{}
	res, err := proc.Run(ctx, proc.Spec{
		Argv: append([]string{bin}, p.args...),
		Dir:  env.Root,
		// GOTOOLCHAIN=local: a go.mod asking for a newer Go must not make
		// `go version` download one.
		Env:           append(env.CommandEnviron(), "GOTOOLCHAIN=local"),
		Stdout:        proc.Stream(out.write),
		Stderr:        proc.SameAsStdout{},
		Timeout:       versionTimeout,
		Grace:         versionGrace,
		NewSession:    true,
		DieWithParent: true,
		Launcher:      env.Launcher,
	})
	first := strings.TrimSpace(out.line())
	switch {
	case err != nil:
		return fmt.Sprintf("error: %v", err)
	case errors.Is(res.Stopped, proc.ErrTimedOut):
		return fmt.Sprintf("no answer within %s (%s)", versionTimeout, bin)
	case res.Stopped != nil:
		return fmt.Sprintf("stopped: %v (%s)", res.Stopped, bin)
	case !res.Exit.Success():
		return fmt.Sprintf("error: %s %s", res.Exit, prose.Cut(first, 120))
	}
	return prose.Cut(first, 120)
}

// firstLine keeps what a probe printed up to its first non-empty line
// (and a little more, which cut trims): a version probe that floods its
// output costs no memory. Only the one output stream writes it, and it is
// read once proc.Run has returned.
type firstLine struct {
	buf []byte
}

func (f *firstLine) write(p []byte) {
	if len(f.buf) < firstLineKeep {
		f.buf = append(f.buf, p[:min(len(p), firstLineKeep-len(f.buf))]...)
	}
}

func (f *firstLine) line() string {
	first, _, _ := strings.Cut(strings.TrimSpace(string(f.buf)), "\n")
	return first
}

func shellOf(env *workspace.Env) string {
	if env.Shell == "" {
		return "bash"
	}
	return env.Shell
}
