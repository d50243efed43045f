package bash

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// loginFiles are a home whose every startup file would announce itself on
// stdout and change PATH, were it read.
func loginFiles() map[string]string {
	files := map[string]string{}
	for _, name := range []string{".bash_profile", ".bash_login", ".profile", ".bashrc"} {
		files[name] = "echo sourced " + name + "\nexport PATH=/from" + name + ":$PATH\n"
	}
	return files
}

// Commands are not run by a login shell: no profile or rc file is read,
// so the PATH the command sees is exactly the one it was given (a login
// shell reads /etc/profile, which on Debian resets PATH), and nothing is
// printed before the command's own output. SSH_CLIENT without SHLVL is how
// bash recognises a command run by sshd, for which a plain `bash -c` reads
// ~/.bashrc after all.
func TestCommandsReadNoLoginOrRcFiles(t *testing.T) {
	home := t.TempDir()
	wstest.Write(t, home, loginFiles())
	path := t.TempDir() + ":" + os.Getenv("PATH")
	env := wstest.Isolated(t, nil)
	env.ShellEnv = []string{"PATH=" + path, "HOME=" + home, "SSH_CLIENT=192.0.2.1 50000 22"}
	command := `echo "PATH=$PATH"; shopt -q login_shell && echo login || echo not-login; echo "SHLVL=$SHLVL"`
	out, err := runTool(t, plainBash(env), map[string]any{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	if want := "exit: 0\nstdout:\nPATH=" + path + "\nnot-login\nSHLVL=1"; out != want {
		t.Errorf("result\n%q\nwant\n%q", out, want)
	}
}

// A directory shiro's own PATH has (a virtualenv, nvm, a toolchain) is
// where commands find programs, whatever the login files would say.
func TestCommandsSeeShirosOwnPATH(t *testing.T) {
	bin := t.TempDir()
	wstest.Write(t, bin, map[string]string{"shiro-probe": "#!/bin/sh\necho probe ran\n"})
	if err := os.Chmod(filepath.Join(bin, "shiro-probe"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	wstest.Write(t, home, loginFiles())
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("HOME", home)
	env := wstest.Env(t, map[string]string{
		"AGENTS.md": "Run `make test`.",
		"Makefile":  "test:\n\t@shiro-probe; exit 1\n",
	})
	env.ShellEnv = nil // the process's own environment

	out, err := runTool(t, plainBash(env), map[string]any{"command": "shiro-probe"})
	if err != nil || out != "exit: 0\nstdout:\nprobe ran" {
		t.Errorf("bash: %q, %v", out, err)
	}
	out, err = runTool(t, Checks(env)[0], map[string]any{})
	if err != nil || !strings.Contains(out, "\n--- make test ---\nprobe ran\n") {
		t.Errorf("run_checks: %q, %v", out, err)
	}
}

func TestShellArgv(t *testing.T) {
	env := wstest.Env(t, nil)
	for shell, want := range map[string][]string{
		"":              {"bash", "--norc", "-c", "ls"},
		"bash":          {"bash", "--norc", "-c", "ls"},
		"/bin/bash":     {"/bin/bash", "--norc", "-c", "ls"},
		"sh":            {"sh", "-c", "ls"},
		"/usr/bin/zsh":  {"/usr/bin/zsh", "-c", "ls"},
		"/opt/bash-5/x": {"/opt/bash-5/x", "-c", "ls"},
	} {
		env.Shell = shell
		if got := shellArgv(env, "ls"); !slices.Equal(got, want) {
			t.Errorf("shell %q: argv %q, want %q", shell, got, want)
		}
	}
}

// recordingLauncher stands in for a sandbox: it records what it was asked
// to run and runs it under `env SHIRO_LAUNCHED=...`, which the command can
// see.
type recordingLauncher struct {
	mu    sync.Mutex
	execs []proc.Exec
	err   error
}

func (l *recordingLauncher) Launch(x proc.Exec) (proc.Exec, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.execs = append(l.execs, x)
	if l.err != nil {
		return proc.Exec{}, l.err
	}
	x.Argv = append([]string{"env", "SHIRO_LAUNCHED=via-launcher"}, x.Argv...)
	return x, nil
}

func (l *recordingLauncher) launched() []proc.Exec {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.execs)
}

// Every command of bash, of background jobs and of run_checks goes
// through the workspace's Launcher, as the command it describes.
func TestEveryCommandGoesThroughTheLauncher(t *testing.T) {
	env := wstest.Isolated(t, map[string]string{
		"AGENTS.md": "Run `make test`.",
		"Makefile":  "test:\n\t@echo \"check $$SHIRO_LAUNCHED\"\n",
	})
	l := &recordingLauncher{}
	env.Launcher = l
	output := newChunkWaiter()
	bg := NewBackground("", nil, Hooks{Output: func(_, chunk string) { output.emit(chunk) }})
	t.Cleanup(func() { _ = bg.StopAll(context.Background()) })
	ts := Tools(env, bg)

	out, err := runTool(t, tooltest.Named(t, ts, "bash"), map[string]any{"command": `echo "fg $SHIRO_LAUNCHED"`})
	if err != nil || out != "exit: 0\nstdout:\nfg via-launcher" {
		t.Errorf("bash: %q, %v", out, err)
	}
	if _, err := runTool(t, tooltest.Named(t, ts, "bash"), map[string]any{"command": `echo "bg $SHIRO_LAUNCHED"`, "background": true}); err != nil {
		t.Fatal(err)
	}
	output.waitFor(t, "bg via-launcher\n")
	streamed := newChunkWaiter()
	out, err = invoke(context.Background(), Checks(env)[0], []byte(`{}`), streamed.emit)
	if err != nil || out != "checks: all passed (1)\nPASS  make test  (AGENTS.md)" {
		t.Errorf("run_checks: %q, %v", out, err)
	}
	if !strings.Contains(streamed.String(), "check via-launcher\n") {
		t.Errorf("run_checks streamed %q", streamed.String())
	}

	// The scan for secret values (git, in this repository-less workspace
	// only `git rev-parse`) goes through the launcher too; the rest are
	// the commands.
	var execs []proc.Exec
	for _, x := range l.launched() {
		if filepath.Base(x.Argv[0]) != "git" {
			execs = append(execs, x)
		}
	}
	commands := []string{`echo "fg $SHIRO_LAUNCHED"`, `echo "bg $SHIRO_LAUNCHED"`, "make test"}
	if len(execs) != len(commands) {
		t.Fatalf("the launcher saw %d commands, want %d: %+v", len(execs), len(commands), execs)
	}
	for i, x := range execs {
		if want := []string{"bash", "--norc", "-c", commands[i]}; !slices.Equal(x.Argv, want) {
			t.Errorf("launch %d: argv %q, want %q", i, x.Argv, want)
		}
		if x.Dir != env.Root {
			t.Errorf("launch %d: dir %q", i, x.Dir)
		}
		if !slices.Contains(x.Env, "PAGER=cat") || slices.ContainsFunc(x.Env, func(kv string) bool { return strings.HasPrefix(kv, "SHIRO_LAUNCHED=") }) {
			t.Errorf("launch %d was not given the command's environment: %q", i, x.Env)
		}
	}
	if !slices.ContainsFunc(execs[1].Env, func(kv string) bool { return strings.HasPrefix(kv, proc.JobTokenVar+"=") }) {
		t.Error("the background job's launch lacks its job token")
	}
}

func TestALauncherErrorStopsTheCommand(t *testing.T) {
	env := wstest.Isolated(t, map[string]string{"AGENTS.md": "`make test`", "Makefile": "test:\n\ttouch ran\n"})
	env.Launcher = &recordingLauncher{err: errors.New("sandbox unavailable")}
	bg := NewBackground("", nil, Hooks{})
	ts := Tools(env, bg)
	for _, c := range []struct {
		name  string
		input map[string]any
	}{
		{"bash", map[string]any{"command": "touch ran"}},
		{"bash", map[string]any{"command": "touch ran", "background": true}},
	} {
		if _, err := runTool(t, tooltest.Named(t, ts, c.name), c.input); err == nil || !strings.Contains(err.Error(), "sandbox unavailable") {
			t.Errorf("%s %v: %v", c.name, c.input, err)
		}
	}
	if _, err := runTool(t, Checks(env)[0], map[string]any{}); err == nil || !strings.Contains(err.Error(), "sandbox unavailable") {
		t.Errorf("run_checks: %v", err)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "ran")); err == nil {
		t.Error("a command ran although its launch failed")
	}
	if len(bg.List()) != 0 {
		t.Errorf("a failed start left a job: %+v", bg.List())
	}
}
