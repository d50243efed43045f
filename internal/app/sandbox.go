package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// sandboxMode is the mode that applies: --sandbox when given; otherwise
// the user's, or the project's when it is stricter (a cloned repository
// may confine more, never less).
func sandboxMode(s config.Settings) (sandbox.Mode, error) {
	if s.SandboxFlag != "" {
		m, err := sandbox.ParseMode(s.SandboxFlag)
		if err != nil {
			return m, fmt.Errorf("--sandbox: %w", err)
		}
		return m, nil
	}
	mode, err := sandbox.ParseMode(s.Sandbox.Mode)
	if err != nil {
		return mode, fmt.Errorf("sandbox.mode: %w", err)
	}
	if s.ProjectSandbox.Mode != "" {
		project, err := sandbox.ParseMode(s.ProjectSandbox.Mode)
		if err != nil {
			return mode, fmt.Errorf("project sandbox.mode: %w", err)
		}
		if project.Stricter(mode) {
			mode = project
		}
	}
	return mode, nil
}

// sandboxPolicy is the sandbox policy of a session in workspace root.
func sandboxPolicy(l Loaded, root string) (sandbox.Policy, error) {
	s := l.Settings
	mode, err := sandboxMode(s)
	if err != nil {
		return sandbox.Policy{}, err
	}
	home, _ := os.UserHomeDir()
	// What the person allowed for this project when the sandbox refused
	// a command counts as their own config; the project's network: false
	// still wins, as it does over their sandbox.network.
	grant, err := config.ProjectSandboxGrant(l.Paths.SandboxGrants(), root)
	if err != nil {
		return sandbox.Policy{}, err
	}
	network := (s.Sandbox.Network != nil && *s.Sandbox.Network) || grant.Network
	if n := s.ProjectSandbox.Network; n != nil && !*n {
		network = false
	}
	p := sandbox.Policy{
		Mode: mode, Workspace: root, Home: home, State: l.Paths.State(), Quarantine: l.Paths.Quarantine(),
		ConfigFile: l.Paths.ConfigFile(), Network: network,
		// The toolchains' caches are found from the settings commands
		// run with (issue 28: the first `go test` failed on ~/.cache).
		CacheEnv: workspace.ScrubEnv(os.Environ(), s.EnvPassthrough),
		Resources: sandbox.Resources{
			MaxProcesses: s.Sandbox.MaxProcesses, MaxMemoryMB: s.Sandbox.MaxMemoryMB, MaxFileMB: s.Sandbox.MaxFileMB,
		},
	}
	for _, w := range s.Sandbox.Writable {
		switch {
		case w == "~":
			w = home
		case strings.HasPrefix(w, "~/"):
			w = filepath.Join(home, w[2:])
		case !filepath.IsAbs(w):
			w = filepath.Join(root, w)
		}
		p.Writable = append(p.Writable, w)
	}
	p.Writable = append(p.Writable, grant.Writable...)
	for _, sock := range s.Sandbox.UnixSockets {
		if rest, ok := strings.CutPrefix(sock, "~/"); ok {
			sock = filepath.Join(home, rest)
		}
		p.UnixSockets = append(p.UnixSockets, sock)
	}
	return p, nil
}

// openSandbox builds the sandbox every command of the session runs in
// (bash, background jobs, run_checks, git tools, hooks), and starts
// finding out what this machine enforces while the rest of the session
// is assembled: noteSandbox waits for the answer.
func (a *App) openSandbox() error {
	policy, err := sandboxPolicy(a.Loaded, a.Env.Root)
	if err != nil {
		return err
	}
	sb, err := sandbox.New(policy)
	if err != nil {
		return err
	}
	a.Sandbox = sb
	a.sandboxSwitch = sandbox.NewSwitch(sb)
	a.Env.Launcher = a.sandboxSwitch
	sb.Start()
	for _, note := range sb.Notes() {
		a.startup = append(a.startup, Problem{Kind: "sandbox", Err: note})
	}
	return nil
}

// noteSandbox says once, at start, what the sandbox cannot enforce on
// this machine: a protection missing is never silent.
func (a *App) noteSandbox() {
	if notice := a.Sandbox.Notice(); notice != "" {
		a.startup = append(a.startup, Problem{Kind: "sandbox", Err: strings.TrimPrefix(notice, "sandbox: ")})
	}
}

// CheckYolo refuses --yolo when commands would run unconfined, or with
// any protection of the sandbox not enforced on this machine (Landlock
// missing, private mounts failing, the network not cut off): only an
// explicit --sandbox off says the person accepts that. It starts the
// sandbox's helper once to find out.
func (l Loaded) CheckYolo() error {
	return checkYolo(l.Settings, sandbox.Available, func() (string, error) {
		sb, err := l.sandboxHere()
		if err != nil {
			return "", err
		}
		defer sb.Close()
		return sb.Notice(), nil
	})
}

// sandboxHere is the sandbox a session in the loaded working directory
// would have; the caller closes it (its waiting helper, its temp folder).
func (l Loaded) sandboxHere() (*sandbox.Sandbox, error) {
	root, err := filepath.EvalSymlinks(l.Cwd)
	if err != nil {
		return nil, err
	}
	policy, err := sandboxPolicy(l, root)
	if err != nil {
		return nil, err
	}
	return sandbox.New(policy)
}

// checkYolo is CheckYolo with what the OS offers (sandbox.Available) and
// what the sandbox would say at start (Sandbox.Notice) as arguments.
func checkYolo(s config.Settings, available func() (bool, string), notice func() (string, error)) error {
	mode, err := sandboxMode(s)
	if err != nil {
		return err
	}
	if s.SandboxFlag == "off" {
		return nil
	}
	if mode == sandbox.Off {
		return errors.New("--yolo with sandbox.mode off runs every command unconfined; pass --sandbox off to confirm that is what you want")
	}
	if ok, why := available(); !ok {
		return fmt.Errorf("--yolo needs the sandbox, but %s; pass --sandbox off to run unconfined anyway", why)
	}
	n, err := notice()
	if err != nil {
		return fmt.Errorf("--yolo needs the sandbox, and what it enforces here could not be found out: %w", err)
	}
	if n != "" {
		why := strings.TrimSuffix(strings.TrimPrefix(n, "sandbox: "), "; see `shiro sandbox`")
		return fmt.Errorf("--yolo needs every protection of the sandbox, but here %s; see `shiro sandbox`, or pass --sandbox off to run without the sandbox", why)
	}
	return nil
}

// DescribeSandbox reports what the sandbox enforces on this machine for
// a session in the loaded working directory (`shiro sandbox`).
func DescribeSandbox(l Loaded) (string, error) {
	sb, err := l.sandboxHere()
	if err != nil {
		return "", err
	}
	defer sb.Close()
	var b strings.Builder
	b.WriteString(sb.Status().String())
	fmt.Fprintf(&b, "\nconfigure: \"sandbox\": {\"mode\": ..., \"writable\": [...], \"network\": false} in %s, or --sandbox MODE (see docs/sandbox.md)\n", l.Paths.ConfigFile())
	return b.String(), nil
}
