package bash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// printArgsVar makes this test binary, run as a command, print its argv
// and its environment, sorted, instead of testing (TestMain).
const printArgsVar = "SHIRO_TEST_PRINTARGS"

func printArgs() {
	environ := os.Environ()
	slices.Sort(environ)
	fmt.Printf("argv %q\nenv %q\n", os.Args, environ)
}

// directWorkspace is a workspace whose bin/ (first in PATH) holds
// printargs (this test binary), scripts with and without #!, one with a
// missing interpreter, one not executable, and a folder d with two
// files; extra is added to the commands' environment.
func directWorkspace(t *testing.T, extra ...string) *workspace.Env {
	t.Helper()
	env := wstest.Env(t, map[string]string{
		"bin/script":    "#!/bin/sh\necho \"0=$0\" \"$@\"\n",
		"bin/noshebang": "echo run by a shell\n",
		"bin/badinterp": "#!/nonexistent/sh\necho never\n",
		"bin/notexec":   "#!/bin/sh\necho never\n",
		"d/a":           "", "d/b": "",
	})
	for _, name := range []string{"script", "noshebang", "badinterp"} {
		if err := os.Chmod(filepath.Join(env.Root, "bin", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(env.Root, "bin", "printargs")); err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = append([]string{"PATH=" + env.Root + "/bin:/usr/bin:/bin", "HOME=" + t.TempDir(),
		printArgsVar + "=1", "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}, extra...)
	return env
}

// specOf is what startShell would start first for line.
func specOf(env *workspace.Env, line string) proc.Spec {
	spec, _ := direct(env, line, shellSpec(env, line, defaultKillTiming(), func(streamKind, []byte) {}))
	return spec
}

// A line of literal words naming a program runs it with bash's argv;
// anything bash could treat otherwise stays `bash --norc -c LINE`.
func TestWhichLinesRunWithoutBash(t *testing.T) {
	env := directWorkspace(t)
	for line, want := range map[string][]string{
		"printargs":                       {"printargs"},
		`printargs -1 'a b' "c d" e=f ''`: {"printargs", "-1", "a b", "c d", "e=f", ""},
		`printargs 'a$b' "*" '~' 'x\y'`:   {"printargs", "a$b", "*", "~", `x\y`},
		"  printargs   x  ":               {"printargs", "x"},
		"ls -1 d":                         {"ls", "-1", "d"},
		"git --version":                   {"git", "--version"},
		"sh -c 'exit 3'":                  {"sh", "-c", "exit 3"},
		"script x":                        {"script", "x"},
		"./bin/script y":                  {"./bin/script", "y"},
		`"printargs" a#b`:                 {"printargs", "a#b"},
	} {
		spec := specOf(env, line)
		if !slices.Equal(spec.Argv, want) || spec.Path == "" {
			t.Errorf("%q: argv %q, path %q; want %q run directly", line, spec.Argv, spec.Path, want)
		}
	}
	if got := specOf(env, "printargs").Path; got != env.Root+"/bin/printargs" {
		t.Errorf("printargs found at %q", got)
	}
	for _, line := range []string{
		"printargs $HOME", "printargs ${HOME}", `printargs "$HOME"`, "printargs ~", "printargs ~/x",
		"printargs a=~/x", "printargs *.go", "printargs a?", "printargs [ab]", "printargs {a,b}",
		"printargs a\\ b", `printargs "a\"b"`, "printargs $(true)", "printargs `true`",
		`printargs "$(true)"`, "printargs $'a'", `printargs $"a"`, "printargs $((1))",
		"printargs <(true)", "printargs @(a)", "printargs !x", "printargs > out", "printargs 2>&1",
		"printargs < d/a", "printargs | cat", "printargs; ls", "printargs && ls", "printargs || ls",
		"printargs &", "printargs\nls", "X=1 printargs", "! printargs", "printargs # note",
		"(printargs)", "{ printargs; }", "time printargs", "coproc printargs",
		"true", "echo hi", "cd /", "[ -f x ]", "test -f x", "command ls", "exec ls", "type ls",
		". x", "source x", "kill 1", "printf x", "pwd", "export A=1", "'if' x", "",
		"nosuchprogram", "noshebang", "badinterp", "notexec", "./bin/missing", "d", "bin/", "printargs '\x00'",
	} {
		if spec := specOf(env, line); spec.Path != "" || spec.Argv[0] != "bash" {
			t.Errorf("%q: runs %q (path %q), want bash", line, spec.Argv, spec.Path)
		}
	}
	env.Shell = "/bin/sh"
	if spec := specOf(env, "printargs"); spec.Path != "" || spec.Argv[0] != "/bin/sh" {
		t.Errorf("with the shell sh: %q", spec.Argv)
	}
}

// An environment bash would change otherwise than bashEnviron does
// leaves the line to bash.
func TestAnEnvironmentBashChangesKeepsBash(t *testing.T) {
	for _, kv := range []string{
		"BASH_ENV=/x", "BASH_FUNC_printargs%%=() { echo f; }", "SHELLOPTS=xtrace", "IFS=:",
		"POSIXLY_CORRECT=1", "EXECIGNORE=*", "PS4=x", "OPTIND=3", "SHLVL=999", "SHLVL=-1", "SHLVL=x",
		"LC_ALL=xx_YY.UTF-8",
	} {
		if spec := specOf(directWorkspace(t, kv), "printargs"); spec.Path != "" {
			t.Errorf("with %s the line runs directly", kv)
		}
	}
	env := directWorkspace(t)
	env.ShellEnv = slices.DeleteFunc(env.ShellEnv, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	if spec := specOf(env, "printargs"); spec.Path != "" {
		t.Error("without PATH the line runs directly")
	}
}

// The same line gives the same result, direct or through bash: argv,
// environment ($_, SHLVL, PWD, OLDPWD as bash leaves them), output and
// exit code. `LINE $@` is the oracle: $@ expands to nothing, so bash runs
// it, and execs the same program in place.
func TestADirectCommandMatchesBash(t *testing.T) {
	other := t.TempDir()
	for _, extra := range [][]string{
		nil,
		{"SHLVL=2", "PWD=/", "OLDPWD=/nonexistent", "_=stale", "X=1", "X=2"},
		{"SHLVL=007", "OLDPWD=" + other, "LC_ALL=C"},
		{"SHLVL="},
	} {
		env := directWorkspace(t, extra...)
		sameAsBash(t, env, "printargs -1 'a b' \"\" x=y", "bin/printargs z", "ls -1 d", "ls -1 missing",
			"git --version", "sh -c 'echo out; echo err >&2; exit 3'", "script q", "./bin/script r")
		env.ShellEnv = append(env.ShellEnv, "PWD="+env.Root)
		sameAsBash(t, env, "printargs")
	}
}

func sameAsBash(t *testing.T, env *workspace.Env, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if specOf(env, line).Path == "" || specOf(env, line+" $@").Path != "" {
			t.Fatalf("%q is not run directly, or its oracle is", line)
		}
		got, errDirect := runForeground(context.Background(), env, defaultKillTiming(), line, 20000, func(string) {})
		want, errBash := runForeground(context.Background(), env, defaultKillTiming(), line+" $@", 20000, func(string) {})
		if errDirect != nil || errBash != nil {
			t.Fatalf("%q: %v, %v", line, errDirect, errBash)
		}
		if got.Output != want.Output || !reflect.DeepEqual(got.Refused, want.Refused) {
			t.Errorf("%q (env %q)\ndirect: %q %+v\nbash:   %q %+v", line, env.ShellEnv[5:], got.Output, got.Refused, want.Output, want.Refused)
		}
	}
}

// Through the sandbox's kept helper, a direct command gets the name it
// was called by as argv[0], writes where bash's would, and a write the
// sandbox refuses is reported as it is for bash. A program the sandbox
// will not execute fails as it does through bash: bash's words, 126 and
// the sandbox's hint, not an error from the helper. Background jobs take
// the direct path too.
func TestADirectCommandInTheSandbox(t *testing.T) {
	if ok, _ := sandbox.Available(); !ok {
		t.Skip("no Landlock here")
	}
	env := directWorkspace(t)
	// The home folder is in the workspace: the helper gives commands a
	// /tmp of its own, so a program under /tmp elsewhere goes to bash.
	home := filepath.Join(env.Root, "home")
	secret := filepath.Join(home, ".ssh", "prog")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: env.Root, Home: home, Temp: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	env.Launcher = sb
	outside := t.TempDir()
	sameAsBash(t, env, "printargs a", "touch made", "touch "+outside+"/x", "sh -c 'exit 3'", secret)
	res, err := runForeground(context.Background(), env, defaultKillTiming(), secret, 20000, func(string) {})
	if err != nil || !strings.Contains(res.Output, "exit: 126") || !strings.Contains(res.Output, secret+": Permission denied") ||
		!strings.Contains(res.Output, "shiro sandbox: ") || strings.Contains(res.Output, "ran") {
		t.Errorf("a program the sandbox will not execute: %q, %v", res.Output, err)
	}
	res, err = runForeground(context.Background(), env, defaultKillTiming(), "touch "+outside+"/y", 20000, func(string) {})
	if err != nil || res.Refused == nil || res.Refused.Path != outside {
		t.Errorf("a refused write: %+v, %v", res.Refused, err)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "made")); err != nil {
		t.Error(err)
	}

	output := newChunkWaiter()
	bg := NewBackground("", nil, Hooks{Output: func(_, chunk string) { output.emit(chunk) }})
	t.Cleanup(func() { _ = bg.StopAll(context.Background()) })
	if spec := specOf(env, "printargs bg"); spec.Path == "" {
		t.Fatal("not direct")
	}
	if _, err := runTool(t, tooltest.Named(t, Tools(env, bg), "bash"), map[string]any{"command": "printargs bg", "background": true}); err != nil {
		t.Fatal(err)
	}
	output.waitFor(t, `argv ["printargs" "bg"]`)
}

// A line the classifier lets through never holds anything bash would
// expand: expanded with every variable, glob, tilde and substitution
// made visible, its words are the argv the direct path runs.
func FuzzLiteralCommand(f *testing.F) {
	for _, seed := range []string{"ls -1 d", `a 'b c' "d" ''`, "a $b", "a *", "a ~", "a {b,c}", `a "$(b)"`,
		"a; b", "a\\ b", "x=1 a", "a > b", `a "b\"c"`, "a $'b'", "a @(b)", "a #c", "a=~ b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv, ok := literalCommand(line)
		if !ok {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q went direct but does not parse: %v", line, err)
		}
		call := file.Stmts[0].Cmd.(*syntax.CallExpr)
		fields, err := expand.Fields(visibleExpansions(), call.Args...)
		if err != nil || !slices.Equal(fields, argv) {
			t.Fatalf("%q: direct argv %q, bash would run %q (%v)", line, argv, fields, err)
		}
	})
}

// visibleExpansions is an expansion config under which anything that
// expands changes: every variable (HOME too) is set, every glob matches,
// and a substitution fails.
func visibleExpansions() *expand.Config {
	return &expand.Config{
		Env: expand.FuncEnviron(func(string) string { return "EXPANDED" }),
		CmdSubst: func(io.Writer, *syntax.CmdSubst) error {
			return errors.New("command substitution")
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errors.New("process substitution") },
		ReadDir2: func(string) ([]os.DirEntry, error) {
			return []os.DirEntry{globbed{}}, nil
		},
	}
}

type globbed struct{ os.DirEntry }

func (globbed) Name() string { return "GLOBBED" }
func (globbed) IsDir() bool  { return false }

// BenchmarkShellSpec is what deciding costs a command: a builtin (parsed,
// then left to bash) and a program (parsed, found, its environment made).
func BenchmarkShellSpec(b *testing.B) {
	env := wstest.Env(b, map[string]string{"d/a": ""})
	env.ShellEnv = wstest.CleanEnviron(b)
	for _, line := range []string{"true", "ls -1 d"} {
		b.Run(line, func(b *testing.B) {
			for b.Loop() {
				specOf(env, line)
			}
		})
	}
}
