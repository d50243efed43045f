package bash

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// countingLauncher counts the programs started through it.
type countingLauncher struct{ n atomic.Int32 }

func (c *countingLauncher) Launch(e proc.Exec) (proc.Exec, error) {
	c.n.Add(1)
	return e, nil
}

// inprocEnv is a workspace with a secret file, a token in the shell's
// environment (scrubbed from commands) and a launcher that counts starts.
func inprocEnv(t *testing.T) (*workspace.Env, *countingLauncher) {
	t.Helper()
	env := wstest.Env(t, map[string]string{".env": "API_KEY=sk-live-0123456789abcdef\n", "a.txt": "x"})
	env.ShellEnv = wstest.CleanEnviron(t, "GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz", "GREETING=hello  world", "STAR=a*b")
	launcher := &countingLauncher{}
	env.Launcher = launcher
	return env, launcher
}

// TestInProcessLinesGiveBashsResult runs each line through the bash tool
// and with real bash (runInShell), and wants the same tool.Result; the
// lines marked inproc must start no program.
func TestInProcessLinesGiveBashsResult(t *testing.T) {
	env, launcher := inprocEnv(t)
	cases := []struct {
		line   string
		inproc bool
	}{
		{"true", true},
		{":", true},
		{"false", true},
		{"echo hello", true},
		{"echo -n hello", true},
		{"echo -e 'a\\tb'", true},
		{"echo -e \"x\\\\\\\\y\\n\"", true},
		{"echo -e \"x\\\\y\\n\"", false}, // \y is not an escape both read alike
		{"echo -E 'a\\tb'", true},
		{"echo 'a\\tb' \"c\\d\" e\\ f", true},
		{"false || echo x", true},
		{"true && echo y; ! true || echo z", true},
		{"exit 3", true},
		{"exit 300", true},
		{"echo before; exit 7; echo after", true},
		{"a=1; echo $a", true},
		{"a=1 b=$a; echo \"${b}-$a\"", true},
		{"false && a=1; echo \"[$a]\"", true},
		{"{ echo in; false; } || echo out", true},
		{"echo $GREETING \"$GREETING\"", true},
		{"echo \"$STAR\"", true},
		{"echo sk-live-0123456789abcdef", true}, // redacted as bash's output is
		{"echo \"*\" '?' \"{a,b}\"", true},
		{"# only a comment", true},
		{"echo -- -x -", true},
		{"echo }", true},
		{"echo tok=$GITHUB_TOKEN", false}, // scrubbed, so unset: left to bash
		{"echo -ne 'a\\tb'", false},
		{"echo -e '100%'", false},
		{"echo -e 'a\\cb'", false},
		{"echo $STAR", false},
		{"echo $undefined", false},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			before := launcher.n.Load()
			got, err := tooltest.Invoke(context.Background(), plainBash(env), tooltest.Input(t, map[string]any{"command": c.line}), tool.Runtime{})
			if err != nil {
				t.Fatal(err)
			}
			if started := launcher.n.Load() - before; (started == 0) != c.inproc {
				t.Errorf("programs started: %d, in-process wanted: %v", started, c.inproc)
			}
			want, err := runInShell(context.Background(), env, defaultKillTiming(), c.line, DefaultTimeoutMS, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("in-process result\n%#v\nbash's\n%#v", got, want)
			}
		})
	}
}

// TestLinesThatReachOutsideRunInBash: the classifier refuses each line,
// and the bash tool starts a program for it.
func TestLinesThatReachOutsideRunInBash(t *testing.T) {
	env, launcher := inprocEnv(t)
	for _, line := range []string{
		"echo *", "echo {1..3}", "echo $(id)", "echo `id`", "echo > f", "cd /", "echo $RANDOM", "umask 0", "eval x",
		"printf x", "true | true", "true &", "echo ~", "a=1 echo $a", "echo $1", "echo $?", "echo ${a:-x}",
		"if true; then echo x; fi", "for i in 1; do echo; done", "(echo x)", "f() { echo; }", "echo $'x'",
		"echo $PWD", "SHELLOPTS=x", "echo [a]", "echo a?", "exit -1", "exit x", "ls", "x=1; x+=2",
		"echo <(true)", "echo $((1+1))", "PATH=/x", "echo $HOSTNAME", "echo -nn x",
	} {
		if pureLineOf(env, line) != nil {
			t.Errorf("%q is taken to run in-process", line)
			continue
		}
		before := launcher.n.Load()
		if _, err := runTool(t, plainBash(env), map[string]any{"command": line}); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if launcher.n.Load() == before {
			t.Errorf("%q started no program", line)
		}
	}
}

// TestAnEnvironmentBashReadsKeepsLinesInBash: a startup file, options or
// exported functions in the command environment change what bash does
// with any line, and a locale bash cannot set has it warn on stderr, so
// no line runs in-process then; nor with another shell.
func TestAnEnvironmentBashReadsKeepsLinesInBash(t *testing.T) {
	for _, extra := range []string{"BASH_ENV=/tmp/x", "BASH_FUNC_echo%%=() {  true; }", "SHELLOPTS=xtrace", "BASHOPTS=xpg_echo",
		"POSIXLY_CORRECT=1", "IFS=x", "ENV=/tmp/x", "f=() { :; }", "LC_ALL=xx_YY.UTF-8"} {
		env := wstest.Env(t, nil)
		env.ShellEnv = wstest.CleanEnviron(t, extra)
		if pureLineOf(env, "echo x") != nil {
			t.Errorf("with %s in the environment, echo x runs in-process", extra)
		}
	}
	env := wstest.Isolated(t, nil)
	env.Shell = "/bin/sh"
	if pureLineOf(env, "true") != nil {
		t.Error("a line for sh runs in-process")
	}
}

// TestAnInProcessLineIsInertInItsPlan: the plan of a pure line says it
// changes nothing (the turn then takes no checkpoint for it); a command
// or a background line does not.
func TestAnInProcessLineIsInertInItsPlan(t *testing.T) {
	env, _ := inprocEnv(t)
	tl := plainBash(env)
	tooltest.Plan(t, tl, `{"command":"true"}`, tool.Plan{Subjects: []string{"true"}, Commands: []string{"true"}, Title: "true", Inert: true})
	tooltest.Plan(t, tl, `{"command":"ls"}`, tool.Plan{Subjects: []string{"ls"}, Commands: []string{"ls"}, Title: "ls"})
	tooltest.Plan(t, tl, `{"command":"true","background":true}`, tool.Plan{Subjects: []string{"true"}, Commands: []string{"true"}, Title: "true"})
}

// TestAGapInTheClassifierStillReachesNothing: run directly, lines the
// classifier would refuse reach a handler, which refuses, and the run
// says to fall back; nothing ran and no file was made.
func TestAGapInTheClassifierStillReachesNothing(t *testing.T) {
	env := wstest.Isolated(t, map[string]string{"a.txt": "x"})
	for _, line := range []string{"echo *", "ls", "echo x > f", "cat a.txt", "cd /"} {
		file := parseForTest(t, line)
		l := &pureLine{file: file, environ: env.CommandEnviron(), dir: env.Root}
		var out stringWriter
		if _, ok := l.run(context.Background(), &out); ok {
			t.Errorf("%q ran in-process, printing %q", line, out.String())
		}
	}
	if entries, err := readDirNames(env.Root); err != nil || len(entries) != 1 {
		t.Errorf("the workspace holds %v (%v), want only a.txt", entries, err)
	}
}

// TestALineThatPrintsNothingWaitsForNoSecretScan: in a repository, the
// scan for secret values runs git, through the launcher, before a
// command's output is redacted; an in-process line that prints nothing
// has nothing to redact and starts nothing, and one that prints still
// waits for the scan.
func TestALineThatPrintsNothingWaitsForNoSecretScan(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env, launcher := inprocEnv(t)
	if out, err := exec.Command("git", "init", "-q", env.Root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if out, err := runTool(t, plainBash(env), map[string]any{"command": "true"}); err != nil || out != "exit: 0" {
		t.Fatalf("true: %q, %v", out, err)
	}
	if n := launcher.n.Load(); n != 0 {
		t.Errorf("true started %d programs", n)
	}
	out, err := runTool(t, plainBash(env), map[string]any{"command": "echo sk-live-0123456789abcdef"})
	if err != nil || strings.Contains(out, "sk-live-0123456789abcdef") {
		t.Fatalf("echo of the secret: %q, %v", out, err)
	}
	if launcher.n.Load() == 0 {
		t.Error("the secret scan started no program: the first check proves nothing")
	}
}
